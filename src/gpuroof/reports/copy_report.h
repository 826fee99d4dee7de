#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/copy_summary.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct CopiedTrace {
  const Trace* trace = nullptr;
  std::vector<DeviceCopies> devices;
};

struct CopyReport {
  std::vector<CopiedTrace> traces;
  std::string window_text;  // the --window value as given
  std::string tool_version;
};

// Per device a table of copy classes, with a warning line when pageable host memory is used.
std::string RenderCopyText(const CopyReport& report);
// The same tables in Markdown.
std::string RenderCopyMarkdown(const CopyReport& report);
// One row per trace, device and copy class (a `trace` column leads when there are several),
// times in ns.
std::string RenderCopyCsv(const CopyReport& report);
// Schema "gpuroof.copies/1" (docs/cli.md): inputs, windows, unrounded numbers.
std::string RenderCopyJson(const CopyReport& report);

// "2001 copies (139.46 MB) use pageable host memory: ..." for a device with pageable copies,
// else "".
std::string PageableWarning(const DeviceCopies& device);

}  // namespace gpuroof
