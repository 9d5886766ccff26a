# `cmake --install` and `cpack -G DEB` (scripts/package.sh): the two programs, their man pages
# (help2man, from each program's --help and --version, when help2man is installed), the desktop
# entry, icon, MIME types and AppStream metainfo (resources/desktop/), bash completion for the CLI
# and the documentation. Presets and the digits data set are compiled into the programs.
include(GNUInstallDirs)

install(TARGETS rbmscope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(RBMSCOPE_MAN_PROGRAMS rbmscope-cli)
if(RBMSCOPE_BUILD_GUI)
  install(TARGETS rbmscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  list(APPEND RBMSCOPE_MAN_PROGRAMS rbmscope)
  set(desktop ${PROJECT_SOURCE_DIR}/resources/desktop)
  install(FILES ${desktop}/io.github.rbmscope.rbmscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${desktop}/io.github.rbmscope.rbmscope.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${desktop}/io.github.rbmscope.rbmscope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${desktop}/io.github.rbmscope.rbmscope.mime.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME io.github.rbmscope.rbmscope.xml)
endif()
# The Python package (python/): Debian's directory for modules of every python3 version.
if(RBMSCOPE_PYTHON)
  set(RBMSCOPE_PYTHON_INSTALL_DIR lib/python3/dist-packages CACHE STRING
      "Where `cmake --install` puts the Python package rbmscope (relative to the prefix)")
  install(TARGETS rbmscope_python LIBRARY DESTINATION ${RBMSCOPE_PYTHON_INSTALL_DIR}/rbmscope)
  install(FILES ${PROJECT_SOURCE_DIR}/python/rbmscope/__init__.py DESTINATION ${RBMSCOPE_PYTHON_INSTALL_DIR}/rbmscope)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/resources/completion/rbmscope-cli
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The Debian changelog, compressed as Debian policy wants it (gzip -n: the same bytes every build).
set(RBMSCOPE_CHANGELOG_GZ ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz)
add_custom_command(OUTPUT ${RBMSCOPE_CHANGELOG_GZ}
  COMMAND sh -c "gzip -9nc '${PROJECT_SOURCE_DIR}/resources/desktop/changelog' > '${RBMSCOPE_CHANGELOG_GZ}'"
  DEPENDS ${PROJECT_SOURCE_DIR}/resources/desktop/changelog VERBATIM)
add_custom_target(rbmscope_changelog ALL DEPENDS ${RBMSCOPE_CHANGELOG_GZ})
install(FILES ${RBMSCOPE_CHANGELOG_GZ} DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Man pages: generated after the programs are built, from their own --help and --version (the
# app answers both without a display). Not part of `all`: the `man` target (scripts/package.sh).
find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(man_files)
  foreach(program ${RBMSCOPE_MAN_PROGRAMS})
    set(page ${CMAKE_CURRENT_BINARY_DIR}/man/${program}.1.gz)
    if(program STREQUAL "rbmscope")
      set(what "see and measure samplers and annealers on restricted Boltzmann machines (desktop app)")
    else()
      set(what "samplers, annealers and exact answers for restricted Boltzmann machines, JSON out")
    endif()
    # The CLI's page also lists each command's options (its overview names only the commands).
    set(include_args)
    set(include_commands)
    if(program STREQUAL "rbmscope-cli")
      set(include_file ${CMAKE_CURRENT_BINARY_DIR}/man/rbmscope-cli-commands.h2m)
      set(include_args --include=${include_file})
      set(include_commands COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:${program}> -DOUT=${include_file}
                                   -P ${PROJECT_SOURCE_DIR}/cmake/RbmscopeManCommands.cmake)
    endif()
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
      ${include_commands}
      COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
              ${HELP2MAN} --no-info --no-discard-stderr --name=${what} ${include_args}
              --output=${CMAKE_CURRENT_BINARY_DIR}/man/${program}.1
              $<TARGET_FILE:${program}>
      COMMAND gzip -9nf ${CMAKE_CURRENT_BINARY_DIR}/man/${program}.1  # Debian ships man pages compressed
      DEPENDS ${program} ${PROJECT_SOURCE_DIR}/cmake/RbmscopeManCommands.cmake
      COMMENT "Man page of ${program} (help2man)" VERBATIM)
    list(APPEND man_files ${page})
  endforeach()
  add_custom_target(man DEPENDS ${man_files})
  install(FILES ${man_files} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 OPTIONAL)
endif()

# The Debian package: `cpack -G DEB` in the build directory (scripts/package.sh).
set(CPACK_PACKAGE_NAME rbmscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "rbmscope developers <rbmscope@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see and measure samplers and annealers on restricted Boltzmann machines")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "rbmscope shows live how annealed importance sampling, parallel tempering\n and mean-field inference behave on restricted Boltzmann machines, and\n measures them against exact answers for small models. rbmscope-cli runs\n the same methods from scripts, with JSON output.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # dependencies from the libraries the programs link
if(RBMSCOPE_PYTHON)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-numpy")  # `import rbmscope` (the programs need neither)
endif()
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/rbmscope/rbmscope")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
include(CPack)
