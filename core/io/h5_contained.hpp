#pragma once
// Private to core/io. An HDF5 file (an .h5 model, or a MATLAB v7.3 .mat, which is HDF5 inside)
// may make libhdf5 read other files: a dataset's raw data stored "externally" in any file
// (H5Pset_external: /etc/passwd, /proc/self/environ, a FIFO that blocks), a virtual dataset
// mapped from datasets of other files, an external link to an object of another file, a
// user-defined link class, or a filter that libhdf5 loads from a plugin. rbmscope reads only
// what is inside the file: before anything is read, every link of the file is
// visited and every dataset's creation properties checked, without opening any other file.
#include <filesystem>

namespace rbm {

// Throws InputError naming the first object that is not self-contained, e.g. "'W': HDF5
// dataset stored outside the file (external storage) is refused; ...". Also turns off
// libhdf5's loading of filter plugins for this process. Run where libhdf5 runs (the isolated
// child), before libhdf5 or libmatio read any data of the file.
void check_h5_self_contained(const std::filesystem::path& path);

}  // namespace rbm
