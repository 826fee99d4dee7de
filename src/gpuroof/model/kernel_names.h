// CUPTI reports kernel names mangled; nsys exports carry a demangled and a short name as well.
#pragma once

#include <string>
#include <string_view>

namespace gpuroof {

// The demangled form of an Itanium C++ ABI name ("_Z6kernelPfi" -> "kernel(float*, int)");
// names that are not mangled (extern "C" kernels) come back unchanged.
std::string DemangleKernelName(std::string_view mangled);

// The base function name nsys shows as shortName: without return type, namespaces, template
// arguments and parameters ("void ns::scale<float>(float*, int)" -> "scale").
std::string ShortKernelName(std::string_view demangled);

}  // namespace gpuroof
