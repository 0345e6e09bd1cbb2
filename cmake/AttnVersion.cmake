# cmake/AttnVersion.cmake — the version `attn --version` prints: project()'s version, plus
# `git describe` when the source is a git checkout. Read at configure time (no timestamps,
# so two builds of one commit print the same); re-run cmake to refresh it.
set(ATTN_GIT_DESCRIBE "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" describe --always --tags --dirty
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    OUTPUT_VARIABLE ATTN_GIT_DESCRIBE
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET)
endif()
if(ATTN_GIT_DESCRIBE)
  set(ATTN_VERSION_STRING "${PROJECT_VERSION} (git ${ATTN_GIT_DESCRIBE})")
else()
  set(ATTN_VERSION_STRING "${PROJECT_VERSION}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/version.hpp.in" "${PROJECT_BINARY_DIR}/generated/attn_version.hpp" @ONLY)
