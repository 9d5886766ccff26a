# rbmscope_simd_target(NAME FLAGS): RBMSCOPE_SIMD_SOURCES compiled with FLAGS into namespace
# rbm::detail::NAME, linked into one relocatable object whose only global symbol is
# rbmscope_kernels_NAME (kernels/kernel_table.hpp); the object is appended to RBMSCOPE_SIMD_OBJECTS.
#
# Why the extra link step: the kernels instantiate Eigen and std templates (GEMM, vector growth)
# that other translation units instantiate too, under the same names. The linker keeps one copy
# of each, so an AVX-512 copy could end up called from the SSE2 path (a crash on a processor
# without it) or the SSE2 copy from the AVX-512 kernel (slow). `ld -r --force-group-allocation`
# dissolves the COMDAT groups and `objcopy --keep-global-symbol` makes every definition but the
# table local, so each target keeps its own copies. EIGEN_MAX_ALIGN_BYTES=16 keeps Eigen's
# allocation and alignment assumptions those of the baseline code the matrices cross into.
# GNU ld and objcopy (binutils) by name: --force-group-allocation is GNU ld's, and with clang
# (the ASan build) CMake's CMAKE_LINKER is ld.lld, which does not know it.
find_program(RBMSCOPE_LD_BFD NAMES ld.bfd ld REQUIRED)
find_program(RBMSCOPE_OBJCOPY NAMES objcopy REQUIRED)
function(rbmscope_simd_target name flags)
  set(lib rbmscope_kernels_${name})
  add_library(${lib} OBJECT ${RBMSCOPE_SIMD_SOURCES})
  target_include_directories(${lib} PRIVATE ${PROJECT_SOURCE_DIR})
  target_include_directories(${lib} SYSTEM PRIVATE ${RANDOM123_INCLUDE_DIR} ${HWY_INCLUDE_DIR})
  target_link_libraries(${lib} PRIVATE Eigen3::Eigen TBB::tbb)
  target_compile_definitions(${lib} PRIVATE EIGEN_DONT_PARALLELIZE EIGEN_MAX_ALIGN_BYTES=16
                             RBMSCOPE_SIMD_NS=${name} RBMSCOPE_SIMD_TABLE=rbmscope_kernels_${name})
  rbmscope_target_options(${lib})
  # -ffp-contract=off: no fused multiply-add where the source has a multiply and an add, so the
  # elementwise math rounds the same on every path (docs/dev/performance.md). -fno-math-errno: the
  # Box-Muller square roots vectorize (sqrt is correctly rounded either way).
  # -fno-gnu-unique (GCC): function-local statics of inline functions (Eigen's cache-size table)
  # are otherwise STB_GNU_UNIQUE symbols, which objcopy cannot make local: they clashed at link.
  target_compile_options(${lib} PRIVATE ${flags} -ffp-contract=off -fno-math-errno ${RBMSCOPE_CORE_OPTIMIZE}
                         $<$<CXX_COMPILER_ID:GNU>:-fno-gnu-unique>)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/kernels_${name}.o)
  add_custom_command(OUTPUT ${out}
    COMMAND ${RBMSCOPE_LD_BFD} -r --force-group-allocation -o ${out}.tmp "$<TARGET_OBJECTS:${lib}>"
    COMMAND ${RBMSCOPE_OBJCOPY} --keep-global-symbol=rbmscope_kernels_${name} ${out}.tmp ${out}
    COMMAND ${CMAKE_COMMAND} -E rm -f ${out}.tmp
    DEPENDS ${lib} "$<TARGET_OBJECTS:${lib}>"
    COMMAND_EXPAND_LISTS
    COMMENT "Kernels for ${name}: one object, only its table global")
  set_source_files_properties(${out} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set(RBMSCOPE_SIMD_OBJECTS ${RBMSCOPE_SIMD_OBJECTS} ${out} PARENT_SCOPE)
endfunction()

# rbmscope_simd_group(GROUP NAME FLAGS SOURCE...): the same for another group of hot code with a
# table of its own: SOURCEs compiled with FLAGS into namespace rbm::detail::GROUP_NAME
# (RBMSCOPE_GROUP_NS), one object whose only global symbol is rbmscope_GROUP_NAME
# (RBMSCOPE_GROUP_TABLE), appended to RBMSCOPE_SIMD_OBJECTS. Used for the training scores
# (training/score_block.cpp), which dispatch on the kernels' choice of path (kernels/simd.hpp).
function(rbmscope_simd_group group name flags)
  set(lib rbmscope_${group}_${name})
  add_library(${lib} OBJECT ${ARGN})
  target_include_directories(${lib} PRIVATE ${PROJECT_SOURCE_DIR})
  target_include_directories(${lib} SYSTEM PRIVATE ${RANDOM123_INCLUDE_DIR})
  target_link_libraries(${lib} PRIVATE Eigen3::Eigen TBB::tbb)
  target_compile_definitions(${lib} PRIVATE EIGEN_DONT_PARALLELIZE EIGEN_MAX_ALIGN_BYTES=16
                             RBMSCOPE_GROUP_NS=${group}_${name} RBMSCOPE_GROUP_TABLE=rbmscope_${group}_${name})
  rbmscope_target_options(${lib})
  target_compile_options(${lib} PRIVATE ${flags} -ffp-contract=off -fno-math-errno ${RBMSCOPE_CORE_OPTIMIZE}
                         $<$<CXX_COMPILER_ID:GNU>:-fno-gnu-unique>)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${group}_${name}.o)
  add_custom_command(OUTPUT ${out}
    COMMAND ${RBMSCOPE_LD_BFD} -r --force-group-allocation -o ${out}.tmp "$<TARGET_OBJECTS:${lib}>"
    COMMAND ${RBMSCOPE_OBJCOPY} --keep-global-symbol=rbmscope_${group}_${name} ${out}.tmp ${out}
    COMMAND ${CMAKE_COMMAND} -E rm -f ${out}.tmp
    DEPENDS ${lib} "$<TARGET_OBJECTS:${lib}>"
    COMMAND_EXPAND_LISTS
    COMMENT "${group} for ${name}: one object, only its table global")
  set_source_files_properties(${out} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set(RBMSCOPE_SIMD_OBJECTS ${RBMSCOPE_SIMD_OBJECTS} ${out} PARENT_SCOPE)
endfunction()
