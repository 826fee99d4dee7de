#include "trace_columns.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "gpuroof/model/column_allocator.h"
#include "gpuroof/model/parallel_for.h"

namespace py = pybind11;

namespace gpuroof::python {

namespace {

// Per signature, a compact code into `categories`: the kernel's short name, or the engine's
// name for copies, memsets and graphs (which have no name of their own).
std::vector<int32_t> NameCodes(const Trace& trace, std::vector<std::string>& categories) {
  std::unordered_map<std::string_view, int32_t> codes;
  std::vector<int32_t> by_signature;
  by_signature.reserve(trace.signatures.size());
  for (const OpSignature& signature : trace.signatures) {
    std::string_view name = IsKernelEngine(signature.engine) && signature.name != 0
                                ? trace.strings.Get(signature.name)
                                : EngineName(signature.engine);
    auto [it, added] = codes.emplace(name, static_cast<int32_t>(categories.size()));
    if (added) categories.emplace_back(name);
    by_signature.push_back(it->second);
  }
  return by_signature;
}

// A stretch of one block's rows and where its (engine-filtered) rows go in the output columns.
struct RowChunk {
  const ActivityBlock* block = nullptr;
  size_t begin = 0;
  size_t end = 0;
  size_t out = 0;   // the output row of the chunk's first kept row
  size_t rows = 0;  // rows kept
};

// The trace's rows in chunks of at most 64 Ki rows, in block order, with their output offsets.
std::vector<RowChunk> ChunksOf(const Trace& trace, std::optional<Engine> engine) {
  constexpr size_t kChunkRows = size_t{1} << 16;
  std::vector<RowChunk> chunks;
  size_t out = 0;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t begin = 0; begin < block.size(); begin += kChunkRows) {
      RowChunk chunk;
      chunk.block = &block;
      chunk.begin = begin;
      chunk.end = std::min(block.size(), begin + kChunkRows);
      chunk.out = out;
      chunk.rows = engine
                       ? static_cast<size_t>(std::count(block.engine.begin() + begin,
                                                        block.engine.begin() + chunk.end, *engine))
                       : chunk.end - begin;
      out += chunk.rows;
      chunks.push_back(chunk);
    }
  }
  return chunks;
}

// A read-only view of a trace column, which keeps `owner` (and so the trace) alive.
template <typename T>
py::array_t<T> ViewOf(const T* data, size_t n, py::handle owner) {
  py::array_t<T> view(static_cast<py::ssize_t>(n), data, owner);
  view.attr("setflags")(py::arg("write") = false);
  return view;
}

template <typename T>
py::array_t<T> ViewOf(const Column<T>& column, py::handle owner) {
  return ViewOf(column.data(), column.size(), owner);
}

// A fresh column of `n` values in the trace columns' memory (huge pages for large ones: first
// touches of 4 KiB pages are what a 10 M-op column costs most on virtual machines), freed
// when NumPy lets go of the array.
template <typename T>
py::array_t<T> NewColumn(size_t n) {
  void* data = AllocateColumn(std::max<size_t>(n, 1) * sizeof(T));
  py::capsule free_when_done(data, [](void* pointer) { FreeColumn(pointer); });
  return py::array_t<T>(static_cast<py::ssize_t>(n), static_cast<T*>(data), free_when_done);
}

template <typename T>
T* Data(py::array_t<T>& array) {
  return array.mutable_data();
}

}  // namespace

py::dict OpsColumns(const Trace& trace, std::optional<Engine> engine, bool correlation,
                    py::handle owner) {
  std::vector<std::string> name_categories;
  const std::vector<int32_t> name_codes = NameCodes(trace, name_categories);
  const std::vector<RowChunk> chunks = ChunksOf(trace, engine);
  const size_t n = chunks.empty() ? 0 : chunks.back().out + chunks.back().rows;
  const bool has_correlation =
      std::all_of(trace.blocks.begin(), trace.blocks.end(),
                  [](const ActivityBlock& b) { return b.correlation.size() == b.size(); });
  const bool views = !engine && trace.blocks.size() == 1;
  py::array_t<int64_t> start_ns, end_ns;
  py::array_t<uint64_t> bytes;
  py::array_t<uint32_t> correlation_column;
  py::array_t<uint8_t> engine_codes;
  if (views) {
    const ActivityBlock& block = trace.blocks.front();
    start_ns = ViewOf(block.start_ns, owner);
    end_ns = ViewOf(block.end_ns, owner);
    bytes = ViewOf(block.bytes, owner);
    engine_codes =
        ViewOf(reinterpret_cast<const uint8_t*>(block.engine.data()), block.size(), owner);
  } else {
    start_ns = NewColumn<int64_t>(n);
    end_ns = NewColumn<int64_t>(n);
    bytes = NewColumn<uint64_t>(n);
    engine_codes = NewColumn<uint8_t>(n);
  }
  if (views && has_correlation) {
    correlation_column = ViewOf(trace.blocks.front().correlation, owner);
  } else if (correlation) {
    correlation_column = NewColumn<uint32_t>(n);
  }
  py::array_t<int32_t> device = NewColumn<int32_t>(n);
  py::array_t<uint32_t> stream = NewColumn<uint32_t>(n);
  py::array_t<int32_t> name = NewColumn<int32_t>(n);
  // Raw pointers taken with the GIL held; the columns are filled without it.
  int64_t* start_out = views ? nullptr : Data(start_ns);
  int64_t* end_out = views ? nullptr : Data(end_ns);
  uint64_t* bytes_out = views ? nullptr : Data(bytes);
  uint8_t* engine_out = views ? nullptr : Data(engine_codes);
  uint32_t* correlation_out =
      !correlation || (views && has_correlation) ? nullptr : Data(correlation_column);
  int32_t* device_out = Data(device);
  uint32_t* stream_out = Data(stream);
  int32_t* name_out = Data(name);
  {
    py::gil_scoped_release release;
    // The chunks are filled on every core: most of the cost is the first touch of the fresh
    // column memory (page faults), which the kernel serves in parallel.
    ParallelFor(chunks.size(), [&](size_t c) {
      const RowChunk& chunk = chunks[c];
      const ActivityBlock& block = *chunk.block;
      size_t row = chunk.out;
      for (size_t i = chunk.begin; i < chunk.end; ++i) {
        if (engine && block.engine[i] != *engine) continue;
        const StreamInfo& info = trace.streams[block.stream[i]];
        device_out[row] = info.device_id;
        stream_out[row] = info.stream_id;
        name_out[row] = name_codes[block.signature[i]];
        if (!views) {
          start_out[row] = block.start_ns[i];
          end_out[row] = block.end_ns[i];
          bytes_out[row] = block.bytes[i];
          engine_out[row] = static_cast<uint8_t>(block.engine[i]);
        }
        if (correlation_out) correlation_out[row] = has_correlation ? block.correlation[i] : 0;
        ++row;
      }
    });
  }
  std::vector<std::string> engine_categories;
  for (Engine e : kAllEngines)
    engine_categories.emplace_back(EngineName(e));
  py::dict columns;
  columns["start_ns"] = start_ns;
  columns["end_ns"] = end_ns;
  columns["device"] = device;
  columns["stream"] = stream;
  columns["engine"] = engine_codes;
  columns["bytes"] = bytes;
  columns["name"] = name;
  if (correlation) columns["correlation"] = correlation_column;
  columns["engine_categories"] = engine_categories;
  columns["name_categories"] = name_categories;
  return columns;
}

}  // namespace gpuroof::python
