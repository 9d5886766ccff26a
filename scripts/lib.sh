# Sourced by the build and test scripts (not run on its own).

# rbm_launcher: the CMake arguments that compile through ccache when it is installed (it is
# optional: nothing here installs it). CCACHE_BASEDIR lets worktrees and clones share hits.
rbm_launcher=()
if command -v ccache >/dev/null 2>&1; then
  rbm_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$root")}
  # Precompiled headers (cmake/RbmscopePch.cmake) are cacheable only with these sloppinesses.
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
fi

# The AddressSanitizer + UndefinedBehaviorSanitizer build (clang), shared by scripts/sanitize.sh
# address (core, CLI and their suites) and scripts/fuzz.sh (the libFuzzer targets): one compile
# of the library serves both. -O1 (the core -O2, see RBMSCOPE_CORE_OPTIMIZE in CMakeLists.txt) with line
# tables only: readable stacks; full debug info of Eigen templates cost compile time. NDEBUG is left
# undefined so Eigen's own bounds and shape assertions run too. fuzzer-no-link only adds the
# coverage hooks libFuzzer feeds on (plain programs run them as no-ops). The kernels only for the
# instruction sets this processor runs (RBMSCOPE_SIMD_PATHS=supported): the suites skip the others,
# so an instrumented AVX-512 path on an AVX2 machine was compiled (a third of the kernels' jobs) and
# never run.
rbm_configure_asan() {  # build directory
  local flags="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
  flags+=" -fsanitize-ignorelist=$root/scripts/ubsan_ignore.txt"  # UBSan off in Debian's headers only (see the file)
  CXX=${RBMSCOPE_ASAN_CXX:-clang++} cmake -S "$root" -B "$1" -G Ninja -DRBMSCOPE_BUILD_GUI=OFF -DRBMSCOPE_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DRBMSCOPE_CORE_OPTIMIZE=-O2 -DRBMSCOPE_SUITE_OPTIONS=-fno-sanitize=fuzzer-no-link -DRBMSCOPE_CLI_SUITES=OFF \
    -DRBMSCOPE_SIMD_PATHS=supported "${rbm_launcher[@]}" >/dev/null
}
