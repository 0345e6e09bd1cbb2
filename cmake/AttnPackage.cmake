# cmake/AttnPackage.cmake — `cpack -G DEB` in the build folder: attn_VERSION_ARCH.deb with
# the Runtime component (bin/attn, man page, completion, lessons) under /usr. Depends
# comes from dpkg-shlibdeps over the binary (libopenblas0, libfmt9,
# libtomlplusplus3, libsodium23, libc6, libstdc++6 …), so it names exactly what attn
# loads, plus less (the lesson pager); the [run] section of tools/packages.txt lists
# the same packages.
set(CPACK_PACKAGE_NAME attn)
set(CPACK_PACKAGE_VENDOR "attn")
set(CPACK_PACKAGE_CONTACT "attn maintainers <attn@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};attn;Runtime;/")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Besides the libraries: `attn lesson` pages tall steps through less on a terminal.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "less")
set(CPACK_STRIP_FILES ON)  # the debug info stays in the build tree
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "teaches Transformer attention by computing it in the open
 attn computes self-, causal and cross-attention and keeps every intermediate
 (scores, scaled, masked, softmax weights, output); numbered lessons print them
 step by step, `attn trace` traces your own matrices, `attn grade` grades
 exercises on per-student numbers.")
include(CPack)
