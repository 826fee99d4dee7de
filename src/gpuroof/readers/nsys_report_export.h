#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpuroof/process/process_runner.h"

namespace gpuroof {

// Whether `path` is named like an Nsight Systems report (.nsys-rep, or the older .qdrep).
bool IsNsysReportName(const std::filesystem::path& path);

// The file an Nsight Systems report is read through: its SQLite export `<stem>.sqlite` beside it.
// The one naming rule, shared by the reader and the CLI's output-equals-input check.
std::filesystem::path NsysExportPath(const std::filesystem::path& report);

// Finds the SQLite export of an `.nsys-rep` report: the sibling `<stem>.sqlite` when it is newer
// than the report, else exports it with `$NSYS` or `nsys` on PATH (`nsys export --type sqlite`).
// Throws InputError when the report is missing, nsys cannot be found (saying how to export by
// hand), or the export fails. nsys runs through `runner` (tests fake it), its progress text on
// our stderr so data output stays clean. `exported`, when given, is set to whether this call
// made the export. A new export is written under a temporary name; `check`, when given, is called
// on that file first (the caller reads it there): when it throws InputError, the new export is
// removed, an existing `<stem>.sqlite` is kept untouched, and the error says so. Only an export
// that `check` accepted is renamed into place, keeping the old file's permissions; `note`, when
// given, is then set to a one-line remark when it replaced an older export.
std::filesystem::path ResolveNsysReport(
    const std::filesystem::path& report, ProcessRunner& runner, bool* exported = nullptr,
    const std::function<void(const std::filesystem::path&)>& check = {},
    std::string* note = nullptr);

// The nsys program to use: $NSYS when set, else `nsys` found on PATH; empty when neither.
std::string FindNsysProgram();

}  // namespace gpuroof
