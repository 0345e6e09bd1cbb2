# cmake/AttnKernels.cmake — per-file instruction-set flags of the product kernels
# (src/core/kernels_avx2.cpp, kernels_avx512.cpp). Source properties are per directory:
# every directory that compiles these files (the top level, bench/) calls this.
# The files are chosen at run time by __builtin_cpu_supports (core/kernels.cpp), so the
# binary still runs on any x86-64; off x86-64 they compile to the generic set.
function(attn_kernel_flags core_dir)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
    set_source_files_properties(${core_dir}/kernels_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
    set_source_files_properties(${core_dir}/kernels_avx512.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f")
  endif()
endfunction()
