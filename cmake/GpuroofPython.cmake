# GPUROOF_PYTHON: the `gpuroof` Python module (src/python, docs/python.md), built from the same
# static libraries as the CLI. It targets Debian's interpreter, not whatever `python3` is first on
# PATH: that is the one that sees Debian's pybind11, NumPy, pandas and pytest.
set(GPUROOF_PYTHON_EXECUTABLE "/usr/bin/python3" CACHE FILEPATH
    "Interpreter the Python module is built for and tested with")

# Sanitized builds leave the module out: a sanitized extension needs libasan preloaded into an
# unsanitized interpreter, which is fragile; the module is built and tested in debug and release.
set(_gpuroof_python_default OFF)
if(NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize" AND EXISTS "${GPUROOF_PYTHON_EXECUTABLE}")
  set(Python_EXECUTABLE "${GPUROOF_PYTHON_EXECUTABLE}")
  find_package(Python 3.9 QUIET COMPONENTS Interpreter Development.Module)
  if(Python_FOUND)
    find_package(pybind11 2.6 CONFIG QUIET)
    if(pybind11_FOUND)
      set(_gpuroof_python_default ON)
    endif()
  endif()
endif()
option(GPUROOF_PYTHON "Build the gpuroof Python module (needs Python and pybind11)"
       ${_gpuroof_python_default})

if(GPUROOF_PYTHON)
  if(NOT pybind11_FOUND)
    set(Python_EXECUTABLE "${GPUROOF_PYTHON_EXECUTABLE}")
    find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
    find_package(pybind11 2.6 CONFIG REQUIRED)
  endif()
  # The static libraries are linked into a shared object.
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  message(STATUS "gpuroof: Python module for ${Python_EXECUTABLE} (${Python_VERSION})")
endif()
