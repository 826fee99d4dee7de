// Which files `gpuroof ranks` reads: the files given, and the traces found in the directories
// given, told by their content.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpuroof {

struct RankInputs {
  std::vector<std::string> paths;  // files given in order, then each directory's traces sorted
  size_t not_traces = 0;           // files in the directories that are no trace, left out
  size_t exported_twice = 0;       // .nsys-rep files left out for their .sqlite export beside them
};

// Files are taken as given; directories are searched recursively for Kineto JSON (.json,
// .json.gz) and nsys SQLite exports by content, and for .nsys-rep files by name (an .nsys-rep
// beside its own .sqlite export is left out: it is the same rank). Throws InputError naming the
// directory when it holds no trace, and naming the path when it does not exist.
RankInputs FindRankInputs(const std::vector<std::string>& inputs);

}  // namespace gpuroof
