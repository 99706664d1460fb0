# LibTorch from the torch wheel of the project's Python (TRACE_PYTHON, the
# .venv scripts/common.sh makes): the importer's headers and libraries.
#
# The paths and the C++ ABI are asked of torch.utils.cpp_extension, the code
# PyTorch's own C++ extensions build with. The wheel's CMake package
# (torch/share/cmake/Torch) is not used: PyPI's wheel is a CUDA build, and
# its TorchConfig.cmake wants the CUDA toolkit it was built with and links
# libtorch_cuda; the importer needs only the CPU library and c10.
#
# Defines the imported target TraceLibTorch (headers, libtorch_cpu, c10) and
# sets TraceLibTorch_FOUND, TraceLibTorch_VERSION and TraceLibTorch_CXX11_ABI
# (the _GLIBCXX_USE_CXX11_ABI the wheel was built with: only code that
# includes LibTorch's headers takes it).

set(TRACE_PYTHON "" CACHE FILEPATH
  "Python whose torch wheel provides LibTorch (scripts/common.sh: .venv/bin/python)")
# A wheel build (pip install ., scikit-build-core) links the torch of the
# Python that builds it.
if(NOT TRACE_PYTHON AND DEFINED SKBUILD AND Python_EXECUTABLE)
  set(TRACE_PYTHON "${Python_EXECUTABLE}" CACHE FILEPATH "" FORCE)
endif()
set(TraceLibTorch_FOUND OFF)
if(NOT TRACE_PYTHON)
  return()
endif()

execute_process(
  COMMAND "${TRACE_PYTHON}" -c [=[
import os, torch
from torch.utils import cpp_extension
real = lambda paths: ",".join(os.path.realpath(p) for p in paths)
print(torch.__version__.split("+")[0])
print(real(cpp_extension.include_paths()))
print(real(cpp_extension.library_paths()))
print(int(torch._C._GLIBCXX_USE_CXX11_ABI))
]=]
  OUTPUT_VARIABLE _torch_info
  ERROR_VARIABLE _torch_error
  RESULT_VARIABLE _torch_result
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _torch_result EQUAL 0)
  message(FATAL_ERROR "TRACE_PYTHON=${TRACE_PYTHON} cannot import torch:\n"
    "${_torch_error}\nscripts/common.sh (trace_venv) makes the environment.")
endif()
string(REPLACE "\n" ";" _torch_info "${_torch_info}")
list(GET _torch_info 0 TraceLibTorch_VERSION)
list(GET _torch_info 1 _torch_includes)
list(GET _torch_info 2 _torch_libdirs)
list(GET _torch_info 3 TraceLibTorch_CXX11_ABI)
string(REPLACE "," ";" _torch_includes "${_torch_includes}")
string(REPLACE "," ";" _torch_libdirs "${_torch_libdirs}")

find_library(TRACE_TORCH_CPU_LIBRARY torch_cpu PATHS ${_torch_libdirs}
  NO_DEFAULT_PATH REQUIRED)
find_library(TRACE_C10_LIBRARY c10 PATHS ${_torch_libdirs} NO_DEFAULT_PATH
  REQUIRED)

add_library(TraceLibTorch INTERFACE IMPORTED)
set_target_properties(TraceLibTorch PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${_torch_includes}"
  INTERFACE_LINK_LIBRARIES "${TRACE_TORCH_CPU_LIBRARY};${TRACE_C10_LIBRARY}"
  # The wheel's libraries stay where pip put them; the tools find them there.
  INTERFACE_LINK_OPTIONS "LINKER:-rpath,${_torch_libdirs}")
set(TraceLibTorch_FOUND ON)
