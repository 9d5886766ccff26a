# One helper for every rbmscope target: warnings, optimisation and (for Qt code) the
# QT_NO_KEYWORDS guard, which keeps Qt's emit/signals/slots macros out of oneTBB's headers.
function(rbmscope_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(RBMSCOPE_NATIVE)
    target_compile_options(${target} PRIVATE -march=native)
  endif()
endfunction()

function(rbmscope_qt_target_options target)
  rbmscope_target_options(${target})
  target_compile_definitions(${target} PRIVATE QT_NO_KEYWORDS)
  set_target_properties(${target} PROPERTIES AUTOMOC ON)
endfunction()

# Unity build of a multi-file target (RBMSCOPE_UNITY, top-level CMakeLists.txt): its sources
# compile in batches of 8 per translation unit, so the precompiled header is loaded and the
# templates of Eigen, Qt, nlohmann-json and the standard library are instantiated once per batch.
function(rbmscope_unity target)
  if(RBMSCOPE_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
