# cmake/AttnInstall.cmake — `cmake --install build --prefix P`:
#   component Runtime      P/bin/attn, P/share/man/man1/attn.1, bash and zsh completion,
#                          P/share/attn/lessons/ (the binary carries its own copy; these
#                          are for reading and for a teacher's own course, --lessons)
#   component Development  the floors as static libraries, their headers under
#                          P/include/attn/, and P/lib/cmake/attn/attnConfig.cmake so that
#                          find_package(attn) gives attn::core … attn::grade
# The .deb (cmake/AttnPackage.cmake) holds the Runtime component only.
include(CMakePackageConfigHelpers)

install(TARGETS attn RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Runtime)
install(FILES packaging/attn.1 DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT Runtime)
install(FILES packaging/completions/attn.bash RENAME attn
        DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions" COMPONENT Runtime)
install(FILES packaging/completions/_attn
        DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions" COMPONENT Runtime)
install(FILES ${ATTN_EMBEDDED_LESSONS} lessons/README.md
        DESTINATION "${CMAKE_INSTALL_DATADIR}/attn/lessons" COMPONENT Runtime)

set(ATTN_FLOORS attn_core attn_io attn_model attn_trace attn_lessons attn_grade)
set(ATTN_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/attn")
install(TARGETS ${ATTN_FLOORS} EXPORT attnTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Development)
# The headers of every floor but cli/, as the sources include them ("core/attention.hpp").
install(DIRECTORY src/ DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/attn" COMPONENT Development
        FILES_MATCHING PATTERN "*.hpp" PATTERN "cli" EXCLUDE)
install(EXPORT attnTargets NAMESPACE attn:: DESTINATION "${ATTN_CMAKE_DIR}" COMPONENT Development)
configure_package_config_file(cmake/attnConfig.cmake.in "${PROJECT_BINARY_DIR}/attnConfig.cmake"
                              INSTALL_DESTINATION "${ATTN_CMAKE_DIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/attnConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/attnConfig.cmake" "${PROJECT_BINARY_DIR}/attnConfigVersion.cmake"
        DESTINATION "${ATTN_CMAKE_DIR}" COMPONENT Development)
