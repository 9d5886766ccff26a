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
