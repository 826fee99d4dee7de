#include "rank_inputs.h"

#include <algorithm>
#include <cerrno>
#include <compare>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <sys/stat.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/gzip_input.h"
#include "gpuroof/readers/nsys_report_export.h"
#include "gpuroof/readers/reader_registry.h"

namespace gpuroof {

namespace {

namespace fs = std::filesystem;

// A name only a trace would have: the name decides for a file whose content cannot be told.
bool NamedLikeATrace(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".sqlite");
}

// Where a JSON document stands on a top-level "traceEvents" key, the one a Kineto object trace
// cannot be read without.
enum class TraceEventsKey {
  kFound,
  kAbsent,   // the top-level object ends without one: no Kineto trace, whatever else it holds
  kUnknown,  // a top-level array (a bare event list), an escaped key, or data that ends or
             // cannot be read before the object does: left to the reader to say
};

// Scans the document's top level (values are skipped, strings and nesting followed), stopping at
// the key or at the end of the object: the whole file is read only when it is no trace.
TraceEventsKey FindTraceEventsKey(const fs::path& file) {
  constexpr std::string_view kKey = "traceEvents";
  try {
    std::unique_ptr<ByteSource> input = OpenByteSource(file);
    std::string buffer(size_t{64} << 10, '\0');
    bool started = false;
    bool in_string = false;
    bool escaped = false;
    bool expect_key = false;
    bool in_key = false;
    bool key_escaped = false;
    std::string key;
    int64_t depth = 0;
    uint64_t offset = 0;
    for (;;) {
      const size_t n = input->Read(buffer.data(), buffer.size());
      if (n == 0) return TraceEventsKey::kUnknown;
      for (size_t i = 0; i < n; ++i, ++offset) {
        const char c = buffer[i];
        if (in_string) {
          if (escaped) {
            escaped = false;
          } else if (c == '\\') {
            escaped = true;
            key_escaped = key_escaped || in_key;
          } else if (c == '"') {
            in_string = false;
            if (in_key) {
              in_key = false;
              if (key_escaped) return TraceEventsKey::kUnknown;
              if (key == kKey) return TraceEventsKey::kFound;
            }
          } else if (in_key && key.size() <= kKey.size()) {
            key.push_back(c);
          }
          continue;
        }
        if (!started) {
          const auto byte = static_cast<unsigned char>(c);
          if (offset < 3 && (byte == 0xEF || byte == 0xBB || byte == 0xBF)) continue;  // BOM
          if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
          if (c != '{') return TraceEventsKey::kUnknown;
          started = true;
          depth = 1;
          expect_key = true;
          continue;
        }
        switch (c) {
          case '"':
            in_string = true;
            if (depth == 1 && expect_key) {
              in_key = true;
              key_escaped = false;
              key.clear();
              expect_key = false;
            }
            break;
          case '{':
          case '[':
            ++depth;
            break;
          case '}':
            if (--depth == 0) return TraceEventsKey::kAbsent;
            break;
          case ']':
            if (--depth == 0) return TraceEventsKey::kUnknown;
            break;
          case ',':
            if (depth == 1) expect_key = true;
            break;
          default:
            break;
        }
      }
    }
  } catch (const InputError&) {
    return TraceEventsKey::kUnknown;
  }
}

// The bytes of a ByteSource one at a time; -1 at the end.
class ByteReader {
 public:
  explicit ByteReader(ByteSource& source) : source_(source), buffer_(size_t{64} << 10, '\0') {}
  int Peek() {
    if (next_ == end_) {
      next_ = 0;
      end_ = source_.Read(buffer_.data(), buffer_.size());
      if (end_ == 0) return -1;
    }
    return static_cast<unsigned char>(buffer_[next_]);
  }
  int Next() {
    const int c = Peek();
    if (c >= 0) ++next_;
    return c;
  }
  int NextNonSpace() {
    for (;;) {
      const int c = Next();
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
    }
  }

 private:
  ByteSource& source_;
  std::string buffer_;
  size_t next_ = 0;
  size_t end_ = 0;
};

bool IsDigit(int c) {
  return c >= '0' && c <= '9';
}

// The rest of a string whose opening quote was read.
bool SkipJsonString(ByteReader& in) {
  for (;;) {
    const int c = in.Next();
    if (c < 0x20) return false;  // the end, or a control byte
    if (c == '"') return true;
    if (c != '\\') continue;
    const int escape = in.Next();
    if (escape == 'u') {
      for (int i = 0; i < 4; ++i) {
        const int h = in.Next();
        if (!IsDigit(h) && !(h >= 'a' && h <= 'f') && !(h >= 'A' && h <= 'F')) return false;
      }
    } else if (escape < 0 || std::string_view("\"\\/bfnrt").find(static_cast<char>(escape)) ==
                                 std::string_view::npos) {
      return false;
    }
  }
}

// The rest of a number, string or literal whose first byte `c` was read.
bool SkipJsonScalar(ByteReader& in, int c) {
  if (c == '"') return SkipJsonString(in);
  const auto rest = [&in](std::string_view expected) {
    for (const char e : expected) {
      if (in.Next() != e) return false;
    }
    return true;
  };
  if (c == 't') return rest("rue");
  if (c == 'f') return rest("alse");
  if (c == 'n') return rest("ull");
  if (c == '-') c = in.Next();
  if (!IsDigit(c)) return false;
  if (c != '0') {
    while (IsDigit(in.Peek()))
      in.Next();
  }
  if (in.Peek() == '.') {
    in.Next();
    if (!IsDigit(in.Peek())) return false;
    while (IsDigit(in.Peek()))
      in.Next();
  }
  if (in.Peek() == 'e' || in.Peek() == 'E') {
    in.Next();
    if (in.Peek() == '+' || in.Peek() == '-') in.Next();
    if (!IsDigit(in.Peek())) return false;
    while (IsDigit(in.Peek()))
      in.Next();
  }
  return true;
}

// True when `file` holds exactly one complete JSON value (whitespace and a BOM around it), read
// as a stream; false for content that is no JSON, is cut short, or cannot be read.
bool HoldsOneJsonValue(const fs::path& file) {
  try {
    std::unique_ptr<ByteSource> source = OpenByteSource(file);
    ByteReader in(*source);
    if (in.Peek() == 0xEF) {
      in.Next();
      if (in.Next() != 0xBB || in.Next() != 0xBF) return false;
    }
    std::vector<char> open;  // the containers entered: '{' or '['
    int c = in.NextNonSpace();
    for (;;) {
      // `c` starts a value.
      bool ended = true;  // the value ended with `c` (a scalar or an empty container)
      if (c == '{' || c == '[') {
        const int first = in.NextNonSpace();
        if (first != (c == '{' ? '}' : ']')) {
          open.push_back(static_cast<char>(c));
          ended = false;
          c = first;
          if (open.back() == '{') {
            if (c != '"' || !SkipJsonString(in) || in.NextNonSpace() != ':') return false;
            c = in.NextNonSpace();
          }
        }
      } else if (!SkipJsonScalar(in, c)) {
        return false;
      }
      if (!ended) continue;
      // After a value: close containers until one goes on with another value.
      for (;;) {
        c = in.NextNonSpace();
        if (open.empty()) return c < 0;
        if (c == (open.back() == '{' ? '}' : ']')) {
          open.pop_back();
          continue;
        }
        if (c != ',') return false;
        if (open.back() == '{' &&
            (in.NextNonSpace() != '"' || !SkipJsonString(in) || in.NextNonSpace() != ':')) {
          return false;
        }
        c = in.NextNonSpace();
        break;
      }
    }
  } catch (const InputError&) {
    return false;
  }
}

struct Identity {
  dev_t device;
  ino_t inode;
  auto operator<=>(const Identity&) const = default;
};

// The file or directory `path` names, links resolved; nullopt when it cannot be stat()ed.
std::optional<Identity> IdentityOf(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return Identity{st.st_dev, st.st_ino};
}

// Lists `directory` into `files` (regular files, links followed) and searches its
// sub-directories, links followed, each directory once: `searched` holds the ones already
// entered, so a link to a parent (a loop) or a second way to one directory is counted, not
// entered. Other entries (broken links, FIFOs, sockets) are counted as no trace.
void Search(const fs::path& directory, std::set<Identity>& searched, std::vector<fs::path>& files,
            RankInputs& inputs) {
  std::error_code ec;
  std::vector<fs::path> subdirectories;
  for (auto it = fs::directory_iterator(directory, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::error_code status_ec;
    const fs::file_status status = it->status(status_ec);
    if (fs::is_directory(status)) {
      subdirectories.push_back(it->path());
    } else if (fs::is_regular_file(status)) {
      files.push_back(it->path());
    } else {
      ++inputs.not_traces;
    }
  }
  if (ec) throw InputError(directory.string(), "cannot be listed: " + ec.message());
  std::sort(subdirectories.begin(), subdirectories.end());
  for (const fs::path& subdirectory : subdirectories) {
    const std::optional<Identity> identity = IdentityOf(subdirectory);
    if (!identity) {
      throw InputError(
          subdirectory.string(),
          "cannot be listed: " + std::error_code(errno, std::generic_category()).message());
    }
    if (!searched.insert(*identity).second) {
      ++inputs.directories_again;
      continue;
    }
    Search(subdirectory, searched, files, inputs);
  }
}

// The traces under `directory`, sorted by path.
std::vector<std::string> TracesIn(const fs::path& directory, RankInputs& inputs) {
  std::vector<fs::path> files;
  std::set<Identity> searched;
  if (std::optional<Identity> top = IdentityOf(directory)) searched.insert(*top);
  Search(directory, searched, files, inputs);
  std::sort(files.begin(), files.end());
  std::vector<std::string> traces;
  for (const fs::path& file : files) {
    if (IsNsysReportName(file)) {
      const fs::path exported = NsysExportPath(file);
      if (std::binary_search(files.begin(), files.end(), exported)) {
        ++inputs.exported_twice;
        // `analyze` would export such a report again; ranks reads the export there, and says so.
        std::error_code ec;
        const auto report_time = fs::last_write_time(file, ec);
        if (!ec && fs::last_write_time(exported, ec) < report_time && !ec) {
          if (inputs.older_exports++ == 0) inputs.first_older_export = exported.string();
        }
      } else {
        traces.push_back(file.string());
      }
      continue;
    }
    std::string problem;
    switch (TellFoundFile(file, &problem)) {
      case FoundFile::kTrace:
        traces.push_back(file.string());
        break;
      case FoundFile::kNotTrace:
        ++inputs.not_traces;
        break;
      case FoundFile::kJsonNotTrace:
        ++inputs.not_traces;
        ++inputs.json_not_traces;
        break;
      case FoundFile::kUnreadable:
        if (inputs.unreadable++ == 0) inputs.first_unreadable = problem;
        break;
    }
  }
  if (traces.empty()) {
    throw InputError(directory.string(),
                     "no trace in the directory (looked for Kineto JSON, nsys SQLite exports "
                     "and .nsys-rep reports)");
  }
  return traces;
}

// How a path was reached, for the message on a trace reached twice.
std::string HowReached(const std::string& directory) {
  return directory.empty() ? "given" : "found in " + directory;
}

// Refuses one file reached twice in `paths` (`found_in[i]`: the directory argument that gave
// path i, "" for a file given): it would be two ranks.
void CheckEachFileOnce(const std::vector<std::string>& paths,
                       const std::vector<std::string>& found_in) {
  std::map<Identity, size_t> first;
  for (size_t later = 0; later < paths.size(); ++later) {
    const std::optional<Identity> identity = IdentityOf(paths[later]);
    if (!identity) continue;
    auto [it, inserted] = first.emplace(*identity, later);
    if (inserted) continue;
    const size_t earlier = it->second;
    const std::string what =
        paths[earlier] == paths[later]
            ? fmt::format("is read twice ({}, and {})", HowReached(found_in[earlier]),
                          HowReached(found_in[later]))
            : fmt::format(
                  "is the same file as {} ({}{})", paths[earlier], HowReached(found_in[earlier]),
                  found_in[later].empty() ? "" : "; this one " + HowReached(found_in[later]));
    throw InputError(paths[later], what + ": each trace is one rank; give it once");
  }
}

}  // namespace

FoundFile TellFoundFile(const fs::path& file, std::string* problem) {
  std::string extension;
  try {
    extension = TraceFileExtension(file);
  } catch (const InputError& error) {
    if (NamedLikeATrace(file)) return FoundFile::kTrace;  // the reader says what is wrong
    if (problem != nullptr) *problem = error.what();
    return FoundFile::kUnreadable;
  }
  // Content that starts like no trace in a file named like one: a complete JSON value that is no
  // trace (a list of numbers, a string) is left out, as an object without "traceEvents" is;
  // anything else (garbage or a cut JSON value in r2.json, a .sqlite that is no SQLite database)
  // is a damaged rank, for the reader to say what is wrong with it.
  if (extension.empty()) {
    if (!NamedLikeATrace(file)) return FoundFile::kNotTrace;
    if (!file.filename().string().ends_with(".sqlite") && HoldsOneJsonValue(file)) {
      return FoundFile::kJsonNotTrace;
    }
    return FoundFile::kTrace;
  }
  if (extension == ".sqlite") return FoundFile::kTrace;
  return FindTraceEventsKey(file) == TraceEventsKey::kAbsent ? FoundFile::kJsonNotTrace
                                                             : FoundFile::kTrace;
}

RankInputs FindRankInputs(const std::vector<std::string>& inputs) {
  RankInputs found;
  std::vector<std::string> found_in;  // per path: the directory argument that gave it, or ""
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<std::string> traces = TracesIn(input, found);
      found.paths.insert(found.paths.end(), traces.begin(), traces.end());
      found_in.resize(found.paths.size(), input);
    } else if (fs::exists(input, ec)) {
      found.paths.push_back(input);
      found_in.emplace_back();
    } else {
      throw InputError(input, "no such file or directory");
    }
  }
  CheckEachFileOnce(found.paths, found_in);
  return found;
}

}  // namespace gpuroof
