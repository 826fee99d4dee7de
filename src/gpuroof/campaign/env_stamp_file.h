// Reading back a campaign's env.json (schema gpuroof.env/1, docs/formats.md), so pages made from
// a sweep's traces can say where and with what those traces were recorded.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuroof/campaign/env_stamp.h"

namespace gpuroof {

// Parses env.json text. Throws InputError naming `source` when the text is not JSON or not of
// schema gpuroof.env/1; fields it does not know are ignored, missing ones stay empty.
EnvStamp ParseEnvJson(std::string_view text, const std::string& source);

// The stamp as labelled lines for a page header: "git" -> "abc123def456 (main, dirty)", "build",
// "GPUs", "GPU busy at start", "nvcc", "host", "recorded", "gpuroof". Empty fields are left out.
std::vector<std::pair<std::string, std::string>> DescribeEnvStamp(const EnvStamp& stamp);

}  // namespace gpuroof
