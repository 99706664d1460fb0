# `cmake --install`: the tools, the libraries and runtimes, the headers
# with their TableGen sources and generated .inc files, the Python
# package, and a CMake package for find_package(TraceMLIR). The layout
# (bin, lib, include, lib/cmake/TraceMLIR, python) is the build tree's
# where it matters: trace-compile finds its runtimes in the lib directory
# beside its bin directory, so a prefix can move.
#
# The libraries are installed by add_mlir_library itself, into the export
# set MLIR's CMake names MLIRTargets (our build's own, not the one of the
# MLIR we link); it becomes TraceMLIRTargets.cmake here, with the targets
# under TraceMLIR::, as stablehlo and torch-mlir export theirs.

include(CMakePackageConfigHelpers)

set(TRACE_INSTALL_CMAKE_DIR lib${LLVM_LIBDIR_SUFFIX}/cmake/TraceMLIR)

set(_trace_tools trace-opt trace-run trace-compile)
if(TRACE_ENABLE_TORCHSCRIPT)
  list(APPEND _trace_tools trace-import)
endif()
# Installed, the tools find ours in the lib directory beside their own,
# libMLIR.so and libLLVM.so where Debian put them, and the torch wheel's
# libraries: in a wheel (pyproject.toml) the torch package beside
# site-packages/trace_mlir, else where pip put the torch they were built
# with (as in the build tree).
set(_trace_rpath "\$ORIGIN/../lib${LLVM_LIBDIR_SUFFIX}" "${LLVM_LIBRARY_DIR}")
if(TRACE_ENABLE_TORCHSCRIPT)
  list(APPEND _trace_rpath "\$ORIGIN/../../torch/lib" ${_torch_libdirs})
endif()
set_target_properties(${_trace_tools} PROPERTIES INSTALL_RPATH "${_trace_rpath}")
install(TARGETS ${_trace_tools} RUNTIME DESTINATION bin COMPONENT trace-tools)
# What a wheel holds (pyproject.toml's build.targets): the tools, their
# runtimes and the plugin, without the tests.
add_custom_target(trace-tools)
add_dependencies(trace-tools ${_trace_tools})
if(TARGET TracePlugin)
  set_target_properties(TracePlugin PROPERTIES INSTALL_RPATH "${_trace_rpath}")
  install(TARGETS TracePlugin LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX}
    COMPONENT trace-tools)
  add_dependencies(trace-tools TracePlugin)
endif()

set(_trace_runtimes TraceCPURuntime TraceCPURuntimeStatic)
if(TARGET TraceCUDARuntime)
  list(APPEND _trace_runtimes TraceCUDARuntime TraceCUDARuntimeStatic)
endif()
add_dependencies(trace-tools ${_trace_runtimes})
install(TARGETS ${_trace_runtimes} EXPORT MLIRTargets
  LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT trace-runtimes
  ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT trace-runtimes)

# The importers are plain libraries (LibTorch's flags, not MLIR's).
if(TRACE_ENABLE_TORCHSCRIPT)
  install(TARGETS TraceTorchScriptImporter TraceExportImporter
    EXPORT MLIRTargets
    ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT trace-importers)
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/trace
  DESTINATION include COMPONENT trace-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/trace
  DESTINATION include COMPONENT trace-headers
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/trace_mlir
  DESTINATION python COMPONENT trace-python
  PATTERN "__pycache__" EXCLUDE)

install(EXPORT MLIRTargets
  NAMESPACE TraceMLIR::
  FILE TraceMLIRTargets.cmake
  DESTINATION ${TRACE_INSTALL_CMAKE_DIR}
  COMPONENT trace-cmake)
# The LibTorch the importers link, for the package to declare again.
set(TRACE_CONFIG_TORCH_INCLUDES "${_torch_includes}")
set(TRACE_CONFIG_TORCH_LIBRARIES "${TRACE_TORCH_CPU_LIBRARY};${TRACE_C10_LIBRARY}")
set(TRACE_CONFIG_TORCH_LIBDIRS "${_torch_libdirs}")
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/TraceMLIRConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/TraceMLIRConfig.cmake
  INSTALL_DESTINATION ${TRACE_INSTALL_CMAKE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/TraceMLIRConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/TraceMLIRConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/TraceMLIRConfigVersion.cmake
  DESTINATION ${TRACE_INSTALL_CMAKE_DIR}
  COMPONENT trace-cmake)
