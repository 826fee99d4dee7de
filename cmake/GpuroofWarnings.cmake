# Warnings live in one INTERFACE target that every project target links privately, never in
# global flags, so third-party headers and consumers are not affected.
add_library(gpuroof_warnings INTERFACE)
add_library(gpuroof::warnings ALIAS gpuroof_warnings)
target_compile_options(gpuroof_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused
                       -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
if(GPUROOF_WARNINGS_AS_ERRORS)
  target_compile_options(gpuroof_warnings INTERFACE -Werror)
endif()
