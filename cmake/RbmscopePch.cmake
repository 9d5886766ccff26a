# Precompiled headers. Eigen, oneTBB, nlohmann-json and the standard headers cost about 3 s of
# parsing per translation unit before any of our code compiles (measured: a file that only
# includes them takes 3.3 s user at -O3 with GCC, 3.0 s under clang with ASan); the project has
# about 150 translation units and CI builds it three times (Release, ASan + UBSan, TSan). Each
# multi-file target compiles its own header once; the one-file targets (every test suite, every
# fuzz target) reuse one header per kind of target, compiled with the same flags.
# RBMSCOPE_PCH=OFF turns it off (to compare, or for a compiler that rejects it).
option(RBMSCOPE_PCH "Precompiled headers for Eigen, oneTBB, JSON, Qt and the standard library" ON)

set(RBMSCOPE_PCH_STD <algorithm> <array> <atomic> <chrono> <cmath> <cstdint> <cstring> <filesystem>
    <functional> <iostream> <limits> <map> <memory> <numeric> <optional> <sstream> <stdexcept> <string>
    <utility> <variant> <vector>)
set(RBMSCOPE_PCH_CORE ${RBMSCOPE_PCH_STD} <Eigen/Dense> <Eigen/Cholesky> <Eigen/Eigenvalues>
    <tbb/parallel_for.h> <tbb/global_control.h> <Random123/philox.h> <nlohmann/json.hpp>)
set(RBMSCOPE_PCH_QT ${RBMSCOPE_PCH_CORE} <QObject> <QString> <QWidget> <QLabel> <QVBoxLayout> <QHBoxLayout>
    <QGridLayout> <QSplitter> <QPushButton> <QComboBox> <QPainter> <QImage> <QTimer> <QJsonArray>
    <QJsonObject> <QJsonDocument> <QChart> <QValueAxis>)

# rbmscope_pch(TARGET CORE|QT): TARGET compiles its own precompiled header.
function(rbmscope_pch target kind)
  if(RBMSCOPE_PCH)
    target_precompile_headers(${target} PRIVATE ${RBMSCOPE_PCH_${kind}})
  endif()
endfunction()

# rbmscope_pch_shared(TARGET GROUP KIND): the first target of GROUP compiles the header, the
# others reuse it. Every target of a group must have the same compile flags and definitions, with
# the same values: clang refuses a header built otherwise (an error naming the macro or flag), GCC
# silently parses the headers again. The groups: core and CLI suites, widget suites, fuzz targets,
# and the app's Qt code (the widgets library, the window library and the app's main.cpp).
function(rbmscope_pch_shared target group kind)
  if(NOT RBMSCOPE_PCH)
    return()
  endif()
  get_property(owner GLOBAL PROPERTY RBMSCOPE_PCH_OWNER_${group})
  if(owner)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  else()
    set_property(GLOBAL PROPERTY RBMSCOPE_PCH_OWNER_${group} ${target})
    target_precompile_headers(${target} PRIVATE ${RBMSCOPE_PCH_${kind}})
  endif()
endfunction()
