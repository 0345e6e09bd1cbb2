# cmake/AttnFlags.cmake — the compile flags of attn's own code. They are directory-wide
# (this project's targets only, never an INTERFACE of an exported target), so a project
# that links attn::core does not inherit our warnings, -Werror or sanitizers.
#
# Same numbers on every compiler: no contraction into FMA, no fast-math.
add_compile_options(-ffp-contract=off -fno-fast-math -Wall -Wextra)
if(ATTN_WERROR)
  add_compile_options(-Werror)
endif()
# ATTN_FUZZ: ASan and UBSan everywhere; libFuzzer's coverage only in the floors the fuzz
# targets run (attn_floor() and tests/fuzz add it), not in cli/ or the Catch2 tests.
if(ATTN_FUZZ)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined -fno-sanitize-recover=all)
endif()
if(ATTN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined -fno-sanitize-recover=all)
endif()

# The same flags as a target, for CMake files that link them explicitly (bench/); never
# linked by the exported floors.
add_library(attn_flags INTERFACE)
target_compile_options(attn_flags INTERFACE -ffp-contract=off -fno-fast-math)
