# Warnings live in one INTERFACE target that every project target links privately, never in
# global flags, so third-party headers and consumers are not affected.
add_library(gpuroof_warnings INTERFACE)
add_library(gpuroof::warnings ALIAS gpuroof_warnings)
target_compile_options(gpuroof_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused
                       -Woverloaded-virtual -Wimplicit-fallthrough)
# GCC 12's flow-based diagnostics report libstdc++'s own std::string and std::vector code as
# overlapping copies or null dereferences once -O2/-O3 inlines it (GCC bugs 105329, 105651,
# 106199): in optimised builds they fire on correct code. -Wnull-dereference stays on where the
# code is not optimised beyond -O1 (debug and the ASan/UBSan CI build, which runs every test);
# -Wrestrict and -Wstringop-overflow stay on for every other compiler and for GCC 13+.
set(gpuroof_optimised "$<OR:$<CONFIG:Release>,$<CONFIG:RelWithDebInfo>,$<CONFIG:MinSizeRel>>")
target_compile_options(gpuroof_warnings INTERFACE
                       "$<$<NOT:${gpuroof_optimised}>:-Wnull-dereference>")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(gpuroof_warnings INTERFACE
                         "$<${gpuroof_optimised}:-Wno-restrict;-Wno-stringop-overflow>")
endif()
if(GPUROOF_WARNINGS_AS_ERRORS)
  target_compile_options(gpuroof_warnings INTERFACE -Werror)
endif()
