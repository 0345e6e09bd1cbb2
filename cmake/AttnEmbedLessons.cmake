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

# The trace examples travel the same way (`attn examples`, `attn trace --example NAME`):
# examples/trace/*.toml whose inputs are all inline. A spec that reads .npy or .csv
# files next to it stays in the source tree only (its data would not travel with it).
file(GLOB ATTN_EXAMPLE_SPECS CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/examples/trace/*.toml")
list(SORT ATTN_EXAMPLE_SPECS)
set(ATTN_EMBEDDED_EXAMPLES "")
foreach(spec IN LISTS ATTN_EXAMPLE_SPECS)
  file(READ "${spec}" spec_text)
  if(NOT spec_text MATCHES "\\.(npy|csv)\"")
    list(APPEND ATTN_EMBEDDED_EXAMPLES "${spec}")
  endif()
endforeach()
set(ATTN_EMBEDDED_EXAMPLES_CPP "${PROJECT_BINARY_DIR}/generated/embedded_examples.cpp")
add_custom_command(
  OUTPUT "${ATTN_EMBEDDED_EXAMPLES_CPP}"
  COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${ATTN_EMBEDDED_EXAMPLES_CPP}" "-DFILES=${ATTN_EMBEDDED_EXAMPLES}"
          -DFUNCTION=embedded_examples -P "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
  DEPENDS ${ATTN_EXAMPLE_SPECS} "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
  COMMENT "Embedding examples/trace/*.toml into attn"
  VERBATIM)

# The checkpoints of lessons 20–22 (lessons/models/*.safetensors and the loss histories
# *.csv, each trained by attn
# itself with the command its lesson documents) and lesson 23's stories260K.gguf travel the same way: `attn lesson 20`
# reads them from the binary (lessons/trained_models.hpp).
file(GLOB ATTN_EMBEDDED_MODELS CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/lessons/models/*.safetensors"
     "${PROJECT_SOURCE_DIR}/lessons/models/*.csv" "${PROJECT_SOURCE_DIR}/lessons/models/*.gguf")
list(SORT ATTN_EMBEDDED_MODELS)
set(ATTN_EMBEDDED_MODELS_CPP "${PROJECT_BINARY_DIR}/generated/embedded_models.cpp")
add_custom_command(
  OUTPUT "${ATTN_EMBEDDED_MODELS_CPP}"
  COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${ATTN_EMBEDDED_MODELS_CPP}" "-DFILES=${ATTN_EMBEDDED_MODELS}"
          -DFUNCTION=embedded_models -P "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
  DEPENDS ${ATTN_EMBEDDED_MODELS} "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
  COMMENT "Embedding lessons/models/*.safetensors into attn"
  VERBATIM)
