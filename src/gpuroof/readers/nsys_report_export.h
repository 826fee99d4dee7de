#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpuroof/process/process_runner.h"

namespace gpuroof {

// Finds the SQLite export of an `.nsys-rep` report: the sibling `<stem>.sqlite` when it is newer
// than the report, else exports it with `$NSYS` or `nsys` on PATH (`nsys export --type sqlite`).
// Throws InputError when the report is missing, nsys cannot be found (saying how to export by
// hand), or the export fails. nsys runs through `runner` (tests fake it), its progress text on
// our stderr so data output stays clean. `exported`, when given, is set to whether this call
// made the export (the caller removes an export it made that then cannot be read, so a corrupt
// export is never reused for being newer than its report).
std::filesystem::path ResolveNsysReport(const std::filesystem::path& report, ProcessRunner& runner,
                                        bool* exported = nullptr);

// The nsys program to use: $NSYS when set, else `nsys` found on PATH; empty when neither.
std::string FindNsysProgram();

}  // namespace gpuroof
