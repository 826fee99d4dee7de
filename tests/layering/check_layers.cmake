# Fails when a source file includes a header from a layer it must not depend on (docs/architecture.md,
# "Layers"). Run by ctest as `layering`: cmake -DSOURCE_DIR=<repo>/src -P check_layers.cmake
#
# Each rule: a folder under src/gpuroof and the folders its files may not include from.
set(rules
    "model:process,readers,analyses,format,reports,campaign,recorder"
    "process:readers,analyses,format,reports,campaign,recorder"
    "format:process,readers,analyses,reports,campaign,recorder"
    "readers:analyses,format,reports,campaign"
    "analyses:process,readers,format,reports,campaign,recorder"
    "reports:process,readers,campaign,recorder"
    "campaign:reports")
set(violations "")
foreach(rule IN LISTS rules)
  string(REPLACE ":" ";" parts "${rule}")
  list(GET parts 0 layer)
  list(GET parts 1 forbidden)
  string(REPLACE "," ";" forbidden "${forbidden}")
  file(GLOB_RECURSE files "${SOURCE_DIR}/gpuroof/${layer}/*.h" "${SOURCE_DIR}/gpuroof/${layer}/*.cc")
  foreach(file IN LISTS files)
    file(STRINGS "${file}" includes REGEX "^#include \"gpuroof/")
    foreach(line IN LISTS includes)
      foreach(other IN LISTS forbidden)
        if(line MATCHES "^#include \"gpuroof/${other}/")
          list(APPEND violations "${file}: ${layer} must not include ${other}: ${line}")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
# MPI stays in the CLI (src/cli/ranks_mpi.cc): no library layer includes it.
file(GLOB_RECURSE library_files "${SOURCE_DIR}/gpuroof/*.h" "${SOURCE_DIR}/gpuroof/*.cc")
foreach(file IN LISTS library_files)
  file(STRINGS "${file}" mpi_includes REGEX "^#include <mpi")
  if(mpi_includes)
    list(APPEND violations "${file}: only src/cli/ranks_mpi.cc includes MPI: ${mpi_includes}")
  endif()
endforeach()
if(violations)
  list(JOIN violations "\n" message)
  message(FATAL_ERROR "layering violations:\n${message}")
endif()
message(STATUS "layering: every include follows the layers")
