// The `gpuroof._gpuroof` extension: reading, the analyses and the CLI's JSON reports, bound for
// the Python package in src/python/gpuroof (docs/python.md). Figures are never computed here:
// every result is the CLI's own JSON (analysis_json.h), every column the trace's own (ops).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gpuroof/model/engine.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"

#include "analysis_json.h"
#include "cli_commands.h"
#include "trace_columns.h"
#include "trace_file.h"

namespace py = pybind11;

namespace gpuroof::python {

namespace {

// A path or argument with a NUL byte would be cut short by the C library (open() reads up to the
// first NUL): refused as Python's open() refuses it.
void RefuseNul(const std::string& text) {
  if (text.find('\0') != std::string::npos) throw py::value_error("embedded null byte");
}

std::unique_ptr<TraceFile> Open(const std::string& path, int threads,
                                std::vector<std::string>* warnings) {
  if (threads < 0 || threads > 64) {
    throw InputError("--threads", "must be between 0 and 64");
  }
  auto file = std::make_unique<TraceFile>(path, threads);
  file->Read(DefaultAnalyzeRead(), warnings);
  return file;
}

// Runs `analysis` without the GIL and returns (json, notes, notes to warn now) to Python.
template <typename Analysis>
py::tuple WithoutGil(Analysis analysis) {
  AnalysisJson result;
  {
    py::gil_scoped_release release;
    result = analysis();
  }
  return py::make_tuple(py::str(result.json), py::cast(result.notes), py::cast(result.warn));
}

std::optional<Engine> EngineFilter(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  std::optional<Engine> engine = EngineFromName(*name);
  if (!engine) throw InputError("engine", "'" + *name + "' is not an engine name");
  return engine;
}

// One dict per element of `items`, filled by `fields(row, item)`.
template <typename T, typename Fields>
py::list Rows(const std::vector<T>& items, Fields fields) {
  py::list rows;
  for (const T& item : items) {
    py::dict row;
    fields(row, item);
    rows.append(row);
  }
  return rows;
}

py::list Devices(const Trace& trace) {
  return Rows(trace.devices, [](py::dict& row, const DeviceInfo& device) {
    row["id"] = device.id;
    row["name"] = device.name;
  });
}

py::list Streams(const Trace& trace) {
  return Rows(trace.streams, [](py::dict& row, const StreamInfo& stream) {
    row["process_id"] = stream.process_id;
    row["device"] = stream.device_id;
    row["context"] = stream.context_id;
    row["stream"] = stream.stream_id;
  });
}

}  // namespace

}  // namespace gpuroof::python

PYBIND11_MODULE(_gpuroof, m) {
  using namespace gpuroof;
  using namespace gpuroof::python;
  m.doc() = "gpuroof's native core; use the `gpuroof` package (docs/python.md)";
  m.attr("__version__") = GPUROOF_VERSION;
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<CheckFailed>(m, "CheckFailed", PyExc_RuntimeError);

  // pybind11's NumPy API (npy_api::get(), used by every array) is a function-local static whose
  // initialiser imports NumPy, which may release the GIL while the static's init guard is held:
  // a second thread holding the GIL then waits on the guard forever (pybind11 2.10). Initialised
  // here, single-threaded; without NumPy only ops() needs it and raises ImportError then.
  try {
    py::module_::import("numpy");
    (void)py::dtype::of<int64_t>();
  } catch (const py::error_already_set&) {
  }

  py::class_<TraceFile>(m, "NativeTrace")
      .def_property_readonly("source", [](const TraceFile& f) { return f.first().source; })
      .def_property_readonly("absolute_path", [](const TraceFile& f) { return f.absolute_path(); })
      .def("check_unchanged", [](const TraceFile& f) { f.CheckUnchanged(); })
      .def_property_readonly("format", [](const TraceFile& f) { return f.first().format; })
      .def_property_readonly("metadata", [](const TraceFile& f) { return f.first().metadata; })
      .def_property_readonly("devices", [](const TraceFile& f) { return Devices(f.first()); })
      .def_property_readonly("streams", [](const TraceFile& f) { return Streams(f.first()); })
      .def_property_readonly("activity_count",
                             [](const TraceFile& f) { return f.first().activity_count(); })
      .def_property_readonly(
          "diagnostics_json",
          [](const TraceFile& f) { return DiagnosticsJson(f.first().diagnostics); })
      .def(
          "analyze",
          [](TraceFile& f, const std::string& window, const std::string& units,
             const std::string& unit_name, const std::string& units_from, bool overlap,
             bool by_stream, const std::string& attribute) {
            AnalyzeArgs args{window, units, unit_name, units_from, overlap, by_stream, attribute};
            return WithoutGil([&] { return AnalyzeJson(f, args); });
          },
          py::arg("window"), py::arg("units"), py::arg("unit_name"), py::arg("units_from"),
          py::arg("overlap"), py::arg("by_stream"), py::arg("attribute"))
      .def(
          "kernels",
          [](TraceFile& f, const std::string& key, const std::string& top,
             const std::string& window, const std::string& attribute) {
            return WithoutGil([&] { return KernelsJson(f, key, top, window, attribute); });
          },
          py::arg("key"), py::arg("top"), py::arg("window"), py::arg("attribute"))
      .def(
          "copies",
          [](TraceFile& f, const std::string& window, bool contention,
             const std::string& attribute) {
            return WithoutGil([&] { return CopiesJson(f, window, contention, attribute); });
          },
          py::arg("window"), py::arg("contention"), py::arg("attribute"))
      .def(
          "gaps",
          [](TraceFile& f, const std::string& min) {
            return WithoutGil([&] { return GapsJson(f, min); });
          },
          py::arg("min"))
      .def(
          "ranges",
          [](TraceFile& f, const std::string& name, const std::string& attribute) {
            return WithoutGil([&] { return RangesJson(f, name, attribute); });
          },
          py::arg("name"), py::arg("attribute"))
      .def(
          "ops",
          [](py::object self, const std::optional<std::string>& engine, bool correlation) {
            const std::optional<Engine> filter = EngineFilter(engine);
            TraceFile& file = self.cast<TraceFile&>();
            std::vector<std::string> warnings;
            const Trace* trace = nullptr;
            {
              py::gil_scoped_release release;
              trace = &file.Read(correlation ? OpsRead() : DefaultAnalyzeRead(), &warnings);
            }
            return py::make_tuple(OpsColumns(*trace, filter, correlation, self),
                                  py::cast(warnings));
          },
          py::arg("engine"), py::arg("correlation"));

  m.def(
      "open",
      [](const std::string& path, int threads) {
        RefuseNul(path);
        std::vector<std::string> warnings;
        std::unique_ptr<TraceFile> file;
        {
          py::gil_scoped_release release;
          file = Open(path, threads, &warnings);
        }
        return py::make_tuple(std::move(file), py::cast(warnings));
      },
      py::arg("path"), py::arg("threads") = 0,
      "Reads a trace (any supported format) as `gpuroof analyze` does: (NativeTrace, warnings)");
  m.def(
      "run_cli",
      [](const std::vector<std::string>& args, bool capture_stdout) {
        for (const std::string& arg : args)
          RefuseNul(arg);
        CommandRun run;
        {
          py::gil_scoped_release release;
          run = RunCliCommand(args, capture_stdout);
        }
        return py::make_tuple(run.exit_code, run.stdout_text, run.messages);
      },
      py::arg("args"), py::arg("capture_stdout") = false,
      "Runs `gpuroof compare|report|api|launches|findings|ranks ARGS` in-process, its result "
      "written to the files ARGS name: (exit code, stdout when captured, else '', what it would "
      "have printed on stderr)");
}
