#pragma once

#include <string>

#include "gpuroof/format/table.h"

namespace gpuroof {

// A GitHub-flavoured Markdown table: the text writer's headers and rescaled values, numbers
// right-aligned, names whole (Markdown wraps them), '|' escaped.
std::string RenderTableMarkdown(const Table& table);

}  // namespace gpuroof
