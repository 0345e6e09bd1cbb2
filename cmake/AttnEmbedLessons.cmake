# cmake/AttnEmbedLessons.cmake — lessons/*.toml built into `attn`, so a copied or
# installed binary runs every lesson with no source tree (ATTN_LESSONS_DIR and
# `--lessons DIR` still override: a teacher's own course).
#
# The glob is CONFIGURE_DEPENDS: a lesson file added or removed re-runs cmake at the
# next build; an edited lesson regenerates the .cpp (each file is a DEPENDS). The .cpp
# holds each file's bytes as an unsigned char array (cmake/embed_files.cmake, with
# file(READ ... HEX): no xxd), compiled into attn_lessons.
file(GLOB ATTN_EMBEDDED_LESSONS CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/lessons/*.toml")
list(SORT ATTN_EMBEDDED_LESSONS)
set(ATTN_EMBEDDED_LESSONS_CPP "${PROJECT_BINARY_DIR}/generated/embedded_lessons.cpp")
add_custom_command(
  OUTPUT "${ATTN_EMBEDDED_LESSONS_CPP}"
  COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${ATTN_EMBEDDED_LESSONS_CPP}" "-DFILES=${ATTN_EMBEDDED_LESSONS}"
          -P "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
  DEPENDS ${ATTN_EMBEDDED_LESSONS} "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
  COMMENT "Embedding lessons/*.toml into attn"
  VERBATIM)
