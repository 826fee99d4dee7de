// gpuroof-trace-builder DESCRIPTION OUTPUT.sqlite
//
// Turns a trace description (see support/trace_description.h) into an nsys-style SQLite file.
// Exit status: 0 on success, 2 for usage errors and invalid descriptions, 1 for I/O or SQLite
// failures. The output is renamed into place only on success, so it is never left partial.
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "support/trace_description.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

void PrintUsage(std::ostream& out) {
  out << "usage: gpuroof-trace-builder DESCRIPTION OUTPUT.sqlite\n"
         "Writes the nsys-style SQLite file described by DESCRIPTION (a .trace text file).\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    PrintUsage(std::cout);
    return 0;
  }
  if (argc != 3) {
    PrintUsage(std::cerr);
    return kExitBadInput;
  }
  const std::string description_path = argv[1];
  std::ifstream in(description_path, std::ios::binary);
  if (!in) {
    std::cerr << "gpuroof-trace-builder: error: cannot open " << description_path << "\n";
    return kExitBadInput;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    std::cerr << "gpuroof-trace-builder: error: cannot read " << description_path << "\n";
    return kExitFailure;
  }
  try {
    gpuroof::testsupport::BuildFromDescription(text.str(), description_path, argv[2]);
  } catch (const gpuroof::testsupport::DescriptionError& e) {
    std::cerr << "gpuroof-trace-builder: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "gpuroof-trace-builder: error: " << e.what() << "\n";
    return kExitFailure;
  }
  return 0;
}
