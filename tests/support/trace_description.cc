#include "support/trace_description.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "support/int_expression.h"
#include "support/nsys_sqlite_builder.h"

namespace gpuroof::testsupport {
namespace {

constexpr int kMaxRepeatDepth = 3;  // loop indices i, j, k
constexpr int64_t kMax24Bits = (int64_t{1} << 24) - 1;

// One whitespace-separated word of a line, with quotes removed and escapes applied.
struct Token {
  std::string text;
  std::size_t equals = std::string::npos;  // first '=' outside quotes: a KEY=VALUE token
  bool quoted = false;
};

enum class Directive {
  kGpu,
  kDomain,
  kKernel,
  kMemcpy,
  kMemset,
  kNvtx,
  kApi,
  kEmptyTable,
  kEnum,
  kMeta,
  kRepeat
};

// Numeric fields evaluated for every emitted row, and the string fields set once at parse time.
// The X, Y, Z members of grid and block must stay consecutive: dimensions are indexed from X.
enum class FieldId {
  kStart,
  kEnd,
  kDevice,
  kContext,
  kStream,
  kPid,
  kCorrelation,
  kGridX,
  kGridY,
  kGridZ,
  kBlockX,
  kBlockY,
  kBlockZ,
  kCopyKind,
  kBytes,
  kSrcKind,
  kDstKind,
  kSrcDevice,
  kDstDevice,
  kCopyCount,
  kValue,
  kMemKind,
  kDomain,
  kEventType,
  kTid,
  kRangeId,
  kId,
  kName,
  kDemangled,
  kText,
  kRegistered,
};

enum class ValueKind { kTime, kInt, kString, kDims, kCopyKind, kMemKind, kNvtxType };

struct KeySpec {
  std::string_view key;
  ValueKind kind;
  FieldId field;
};

// Keys shared by the three CUDA activity directives.
constexpr KeySpec kActivityKeys[] = {
    {"start", ValueKind::kTime, FieldId::kStart},     {"end", ValueKind::kTime, FieldId::kEnd},
    {"dev", ValueKind::kInt, FieldId::kDevice},       {"ctx", ValueKind::kInt, FieldId::kContext},
    {"stream", ValueKind::kInt, FieldId::kStream},    {"pid", ValueKind::kInt, FieldId::kPid},
    {"corr", ValueKind::kInt, FieldId::kCorrelation},
};
constexpr KeySpec kKernelKeys[] = {
    {"name", ValueKind::kString, FieldId::kName},
    {"demangled", ValueKind::kString, FieldId::kDemangled},
    {"grid", ValueKind::kDims, FieldId::kGridX},
    {"block", ValueKind::kDims, FieldId::kBlockX},
};
constexpr KeySpec kMemcpyKeys[] = {
    {"kind", ValueKind::kCopyKind, FieldId::kCopyKind},
    {"bytes", ValueKind::kInt, FieldId::kBytes},
    {"src", ValueKind::kMemKind, FieldId::kSrcKind},
    {"dst", ValueKind::kMemKind, FieldId::kDstKind},
    {"srcdev", ValueKind::kInt, FieldId::kSrcDevice},
    {"dstdev", ValueKind::kInt, FieldId::kDstDevice},
    {"count", ValueKind::kInt, FieldId::kCopyCount},
};
constexpr KeySpec kMemsetKeys[] = {
    {"bytes", ValueKind::kInt, FieldId::kBytes},
    {"value", ValueKind::kInt, FieldId::kValue},
    {"mem", ValueKind::kMemKind, FieldId::kMemKind},
};
constexpr KeySpec kNvtxKeys[] = {
    {"start", ValueKind::kTime, FieldId::kStart},
    {"end", ValueKind::kTime, FieldId::kEnd},
    {"text", ValueKind::kString, FieldId::kText},
    {"registered", ValueKind::kString, FieldId::kRegistered},
    {"domain", ValueKind::kInt, FieldId::kDomain},
    {"type", ValueKind::kNvtxType, FieldId::kEventType},
    {"pid", ValueKind::kInt, FieldId::kPid},
    {"tid", ValueKind::kInt, FieldId::kTid},
    {"rangeid", ValueKind::kInt, FieldId::kRangeId},
};

constexpr KeySpec kApiKeys[] = {
    {"start", ValueKind::kTime, FieldId::kStart},     {"end", ValueKind::kTime, FieldId::kEnd},
    {"corr", ValueKind::kInt, FieldId::kCorrelation}, {"pid", ValueKind::kInt, FieldId::kPid},
    {"tid", ValueKind::kInt, FieldId::kTid},          {"name", ValueKind::kString, FieldId::kName},
};

struct Keyword {
  std::string_view name;
  int value;
};
// nsys copyKind numbering (ENUM_CUDA_MEMCPY_OPER), not cudaMemcpyKind.
constexpr Keyword kCopyKinds[] = {
    {"HtoD", 1},      {"DtoH", 2},      {"HtoA", 3},      {"AtoH", 4},    {"AtoA", 5},
    {"AtoD", 6},      {"DtoA", 7},      {"DtoD", 8},      {"HtoH", 9},    {"PtoP", 10},
    {"UVM_HtoD", 11}, {"UVM_DtoH", 12}, {"UVM_DtoD", 13}, {"Unknown", 0},
};
// nsys ENUM_CUDA_MEM_KIND numbering, not CUPTI's.
constexpr Keyword kMemKinds[] = {
    {"pageable", 0}, {"pinned", 1},       {"device", 2},        {"array", 3},
    {"managed", 4},  {"devicestatic", 5}, {"managedstatic", 6}, {"unknown", 7},
};
constexpr Keyword kNvtxTypes[] = {{"pushpop", 59}, {"startend", 60}, {"mark", 34}};

std::optional<int> FindKeyword(std::span<const Keyword> keywords, std::string_view word) {
  for (const Keyword& keyword : keywords) {
    if (std::equal(word.begin(), word.end(), keyword.name.begin(), keyword.name.end(),
                   [](char a, char b) {
                     return std::tolower(static_cast<unsigned char>(a)) ==
                            std::tolower(static_cast<unsigned char>(b));
                   })) {
      return keyword.value;
    }
  }
  return std::nullopt;
}

std::string KeywordList(std::span<const Keyword> keywords) {
  std::string list;
  for (const Keyword& keyword : keywords) {
    if (!list.empty()) list += ", ";
    list += keyword.name;
  }
  return list;
}

struct Field {
  FieldId id;
  std::string key;     // as written, for messages
  std::string source;  // the expression as written, for messages
  IntExpression expression;
};

using RowTemplate =
    std::variant<std::monostate, KernelRow, MemcpyRow, MemsetRow, NvtxRow, ApiCallRow>;

// One parsed directive. Row directives keep a row template whose constant parts (names, kinds)
// are filled at parse time; only `fields` are evaluated per emitted row.
struct Statement {
  int line = 0;
  Directive directive = Directive::kGpu;
  std::vector<Field> fields;
  RowTemplate row;
  std::vector<std::string> strings;  // gpu/domain name; enum table, name, label; meta name, value
  NsysSqliteBuilder::Table table = NsysSqliteBuilder::Table::kKernel;
  IntExpression count;          // repeat
  IntExpression step;           // repeat
  std::vector<Statement> body;  // repeat
};

struct ParsedDescription {
  BuilderOptions options;
  std::vector<Statement> statements;
};

std::string Located(const std::string& source, int line, std::string_view message) {
  return fmt::format("{}:{}: {}", source, line, message);
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  ParsedDescription Parse() {
    std::size_t begin = 0;
    while (begin <= text_.size()) {
      std::size_t end = text_.find('\n', begin);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(begin, end - begin);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++line_;
      ParseLine(line);
      begin = end + 1;
    }
    if (!open_repeats_.empty()) {
      Fail(open_repeats_.back().line, "repeat block is never closed (missing '}')");
    }
    return std::move(parsed_);
  }

 private:
  [[noreturn]] void Fail(int line, std::string_view message) const {
    throw DescriptionError(Located(source_, line, message));
  }
  [[noreturn]] void Fail(std::string_view message) const { Fail(line_, message); }

  std::vector<Token> Tokenize(std::string_view line) const {
    std::vector<Token> tokens;
    std::size_t i = 0;
    for (;;) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
        ++i;
      if (i == line.size() || line[i] == '#') break;
      Token token;
      bool in_quotes = false;
      while (i < line.size()) {
        const char c = line[i];
        if (in_quotes) {
          if (c == '"') {
            in_quotes = false;
          } else if (c == '\\') {
            if (i + 1 == line.size() || (line[i + 1] != '"' && line[i + 1] != '\\')) {
              Fail(fmt::format("unknown escape '\\{}' in a quoted value (only \\\" and \\\\)",
                               i + 1 == line.size() ? std::string() : std::string(1, line[i + 1])));
            }
            token.text += line[++i];
          } else {
            token.text += c;
          }
          ++i;
          continue;
        }
        if (c == ' ' || c == '\t' || c == '#') break;
        if (c == '"') {
          in_quotes = true;
          token.quoted = true;
        } else {
          if (c == '=' && token.equals == std::string::npos) token.equals = token.text.size();
          token.text += c;
        }
        ++i;
      }
      if (in_quotes) Fail("unterminated quoted value (missing closing '\"')");
      tokens.push_back(std::move(token));
    }
    return tokens;
  }

  void ParseLine(std::string_view line) {
    std::vector<Token> tokens = Tokenize(line);
    if (tokens.empty()) return;
    const std::string& word = tokens[0].text;
    if (tokens[0].quoted)
      Fail(fmt::format("expected a directive, got a quoted value \"{}\"", word));
    if (word == "schema") return ParseSchema(tokens);
    if (word == "allow-nulls") return ParseAllowNulls(tokens);
    if (word == "}") return CloseRepeat(tokens);
    seen_directive_ = true;
    if (word == "repeat") return OpenRepeat(tokens);
    Statement statement;
    statement.line = line_;
    if (word == "gpu") {
      ParseGpu(tokens, statement);
    } else if (word == "domain") {
      ParseDomain(tokens, statement);
    } else if (word == "kernel" || word == "memcpy" || word == "memset" || word == "nvtx" ||
               word == "api") {
      ParseRow(tokens, statement);
    } else if (word == "empty-table") {
      ParseEmptyTable(tokens, statement);
    } else if (word == "enum") {
      ParseEnum(tokens, statement);
    } else if (word == "meta") {
      ParseMeta(tokens, statement);
    } else {
      Fail(fmt::format(
          "unknown directive '{}' (expected schema, allow-nulls, gpu, domain, kernel, memcpy, "
          "memset, nvtx, api, empty-table, enum, meta, repeat)",
          word));
    }
    Add(std::move(statement));
  }

  void Add(Statement statement) {
    if (open_repeats_.empty()) {
      parsed_.statements.push_back(std::move(statement));
    } else {
      open_repeats_.back().body.push_back(std::move(statement));
    }
  }

  int Depth() const { return static_cast<int>(open_repeats_.size()); }

  void ParseSchema(const std::vector<Token>& tokens) {
    if (seen_directive_) Fail("'schema' must come before all other directives");
    if (seen_schema_) Fail("'schema' given twice");
    if (tokens.size() != 2) Fail("expected: schema 2020|2021|2022|2024|2025");
    const std::string& year = tokens[1].text;
    if (year == "2020") {
      parsed_.options.schema = NsysSchema::k2020;
    } else if (year == "2021") {
      parsed_.options.schema = NsysSchema::k2021;
    } else if (year == "2022") {
      parsed_.options.schema = NsysSchema::k2022;
    } else if (year == "2024") {
      parsed_.options.schema = NsysSchema::k2024;
    } else if (year == "2025") {
      parsed_.options.schema = NsysSchema::k2025;
    } else {
      Fail(fmt::format("unknown schema '{}' (expected 2020, 2021, 2022, 2024 or 2025)", year));
    }
    seen_schema_ = true;
  }

  void ParseAllowNulls(const std::vector<Token>& tokens) {
    if (seen_directive_) Fail("'allow-nulls' must come before all other directives");
    if (tokens.size() != 1) Fail("'allow-nulls' takes no arguments");
    parsed_.options.allow_nulls = true;
  }

  void OpenRepeat(const std::vector<Token>& tokens) {
    if (tokens.size() < 3 || tokens.back().text != "{" || tokens.back().quoted) {
      Fail("expected: repeat COUNT [step=T] {   (the '{' ends the line)");
    }
    if (Depth() == kMaxRepeatDepth) {
      Fail("repeat blocks nest at most three deep (loop indices i, j, k)");
    }
    Statement statement;
    statement.line = line_;
    statement.directive = Directive::kRepeat;
    if (tokens[1].equals != std::string::npos) Fail("expected the repeat COUNT before any key");
    statement.count = ParseExpression("COUNT", tokens[1].text, false);
    for (std::size_t i = 2; i + 1 < tokens.size(); ++i) {
      auto [key, value] = SplitKeyValue(tokens[i], "repeat");
      if (key != "step") Fail(fmt::format("unknown key '{}' for repeat (expected step)", key));
      if (i > 2) Fail("'step' given twice");
      statement.step = ParseExpression(key, value, true);
    }
    open_repeats_.push_back(std::move(statement));
  }

  void CloseRepeat(const std::vector<Token>& tokens) {
    if (tokens.size() != 1) Fail("'}' must be alone on its line");
    if (open_repeats_.empty()) Fail("'}' without a matching repeat");
    Statement statement = std::move(open_repeats_.back());
    open_repeats_.pop_back();
    Add(std::move(statement));
  }

  void ParseGpu(const std::vector<Token>& tokens, Statement& statement) {
    statement.directive = Directive::kGpu;
    if (tokens.size() != 3 || tokens[1].equals != std::string::npos) {
      Fail("expected: gpu ID \"NAME\"");
    }
    statement.fields.push_back(
        {FieldId::kId, "ID", tokens[1].text, ParseExpression("ID", tokens[1].text, false)});
    statement.strings.push_back(tokens[2].text);
  }

  void ParseDomain(const std::vector<Token>& tokens, Statement& statement) {
    statement.directive = Directive::kDomain;
    if (tokens.size() < 3 || tokens.size() > 4 || tokens[1].equals != std::string::npos) {
      Fail("expected: domain ID \"NAME\" [pid=N]");
    }
    statement.fields.push_back(
        {FieldId::kId, "ID", tokens[1].text, ParseExpression("ID", tokens[1].text, false)});
    statement.strings.push_back(tokens[2].text);
    if (tokens.size() == 4) {
      auto [key, value] = SplitKeyValue(tokens[3], "domain");
      if (key != "pid") Fail(fmt::format("unknown key '{}' for domain (expected pid)", key));
      statement.fields.push_back({FieldId::kPid, key, value, ParseExpression(key, value, false)});
    }
  }

  void ParseEmptyTable(const std::vector<Token>& tokens, Statement& statement) {
    statement.directive = Directive::kEmptyTable;
    if (tokens.size() != 2) Fail("expected: empty-table kernel|memcpy|memset|nvtx");
    const std::string& name = tokens[1].text;
    if (name == "kernel") {
      statement.table = NsysSqliteBuilder::Table::kKernel;
    } else if (name == "memcpy") {
      statement.table = NsysSqliteBuilder::Table::kMemcpy;
    } else if (name == "memset") {
      statement.table = NsysSqliteBuilder::Table::kMemset;
    } else if (name == "nvtx") {
      statement.table = NsysSqliteBuilder::Table::kNvtx;
    } else {
      Fail(fmt::format("unknown table '{}' (expected kernel, memcpy, memset or nvtx)", name));
    }
  }

  void ParseEnum(const std::vector<Token>& tokens, Statement& statement) {
    statement.directive = Directive::kEnum;
    if (tokens.size() != 5) Fail("expected: enum TABLE ID NAME \"LABEL\"");
    const std::string& table = tokens[1].text;
    if (table != "ENUM_CUDA_MEMCPY_OPER" && table != "ENUM_CUDA_MEM_KIND") {
      Fail(
          fmt::format("unknown enum table '{}' (expected ENUM_CUDA_MEMCPY_OPER or "
                      "ENUM_CUDA_MEM_KIND)",
                      table));
    }
    if (parsed_.options.schema < NsysSchema::k2022) {
      Fail("'enum' needs schema 2022 or later (older exports have no ENUM_* tables)");
    }
    statement.fields.push_back(
        {FieldId::kId, "ID", tokens[2].text, ParseExpression("ID", tokens[2].text, false)});
    statement.strings = {table, tokens[3].text, tokens[4].text};
  }

  void ParseMeta(const std::vector<Token>& tokens, Statement& statement) {
    statement.directive = Directive::kMeta;
    if (tokens.size() != 3) Fail("expected: meta NAME \"VALUE\"");
    if (parsed_.options.schema == NsysSchema::k2020) {
      Fail("'meta' needs schema 2021 or later (2020-era exports have no metadata table)");
    }
    statement.strings = {tokens[1].text, tokens[2].text};
  }

  void ParseRow(const std::vector<Token>& tokens, Statement& statement) {
    const std::string& directive = tokens[0].text;
    std::vector<std::span<const KeySpec>> specs;
    if (directive == "kernel") {
      statement.directive = Directive::kKernel;
      statement.row = KernelRow{};
      specs = {kActivityKeys, kKernelKeys};
    } else if (directive == "memcpy") {
      statement.directive = Directive::kMemcpy;
      statement.row = MemcpyRow{};
      specs = {kActivityKeys, kMemcpyKeys};
    } else if (directive == "memset") {
      statement.directive = Directive::kMemset;
      statement.row = MemsetRow{};
      specs = {kActivityKeys, kMemsetKeys};
    } else if (directive == "api") {
      statement.directive = Directive::kApi;
      statement.row = ApiCallRow{};
      specs = {kApiKeys};
    } else {
      statement.directive = Directive::kNvtx;
      statement.row = NvtxRow{};
      specs = {kNvtxKeys};
    }
    std::vector<std::string> seen;
    for (std::size_t i = 1; i < tokens.size(); ++i) {
      auto [key, value] = SplitKeyValue(tokens[i], directive);
      const KeySpec* spec = FindKey(specs, key);
      if (spec == nullptr) {
        Fail(fmt::format("unknown key '{}' for {} (expected one of: {})", key, directive,
                         KeyList(specs)));
      }
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        Fail(fmt::format("'{}' given twice", key));
      }
      seen.emplace_back(key);
      ParseValue(*spec, key, value, statement);
    }
    auto has = [&seen](std::string_view key) {
      return std::find(seen.begin(), seen.end(), key) != seen.end();
    };
    std::vector<std::string_view> required = {"start"};
    if (statement.directive != Directive::kNvtx) required.push_back("end");
    if (statement.directive == Directive::kMemcpy) required.push_back("kind");
    if (statement.directive == Directive::kMemcpy || statement.directive == Directive::kMemset) {
      required.push_back("bytes");
    }
    if (statement.directive == Directive::kApi) required.push_back("corr");
    for (std::string_view key : required) {
      if (!has(key)) Fail(fmt::format("{} needs {}=", directive, key));
    }
    if (has("count") && parsed_.options.schema != NsysSchema::k2025) {
      Fail("memcpy count= needs schema 2025 (older exports have no copyCount column)");
    }
    if (statement.directive == Directive::kNvtx) {
      if (!has("text") && !has("registered")) Fail("nvtx needs text= or registered=");
      if (has("text") && has("registered")) Fail("nvtx takes text= or registered=, not both");
    }
  }

  void ParseValue(const KeySpec& spec, const std::string& key, const std::string& value,
                  Statement& statement) {
    switch (spec.kind) {
      case ValueKind::kTime:
        if (value == "null") {
          if (statement.directive == Directive::kNvtx) {
            // NVTX_EVENTS.end is nullable in every export; start never is.
            if (spec.field == FieldId::kStart) Fail("nvtx start cannot be null");
          } else if (!parsed_.options.allow_nulls) {
            Fail(fmt::format("{}=null needs 'allow-nulls' at the top of the description", key));
          }
          return;  // templates start with null timestamps
        }
        statement.fields.push_back({spec.field, key, value, ParseExpression(key, value, true)});
        return;
      case ValueKind::kInt:
        statement.fields.push_back({spec.field, key, value, ParseExpression(key, value, false)});
        return;
      case ValueKind::kString:
        SetString(spec.field, value, statement.row);
        return;
      case ValueKind::kDims: {
        std::size_t begin = 0;
        for (int axis = 0; axis < 3; ++axis) {
          const std::size_t comma = value.find(',', begin);
          const std::string part = value.substr(begin, comma - begin);
          const FieldId id = static_cast<FieldId>(static_cast<int>(spec.field) + axis);
          statement.fields.push_back({id, key, part, ParseExpression(key, part, false)});
          if (comma == std::string::npos) return;
          begin = comma + 1;
        }
        Fail(fmt::format("{}={} has more than three dimensions", key, value));
      }
      case ValueKind::kCopyKind:
        return ParseKeywordOrNumber(kCopyKinds, "copy kind", spec, key, value, statement);
      case ValueKind::kMemKind:
        return ParseKeywordOrNumber(kMemKinds, "memory kind", spec, key, value, statement);
      case ValueKind::kNvtxType:
        return ParseKeywordOrNumber(kNvtxTypes, "nvtx type", spec, key, value, statement);
    }
  }

  // Keywords become constant fields, so they are range-checked and applied like numbers.
  void ParseKeywordOrNumber(std::span<const Keyword> keywords, std::string_view what,
                            const KeySpec& spec, const std::string& key, const std::string& value,
                            Statement& statement) {
    if (std::optional<int> number = FindKeyword(keywords, value)) {
      statement.fields.push_back(
          {spec.field, key, value, IntExpression::Parse(std::to_string(*number), {})});
      return;
    }
    try {
      statement.fields.push_back(
          {spec.field, key, value, IntExpression::Parse(value, {.variable_count = Depth()})});
    } catch (const ExpressionError& e) {
      if (std::isalpha(static_cast<unsigned char>(value[0])) != 0 &&
          value.find_first_of("+-*/%()") == std::string::npos) {
        Fail(fmt::format("unknown {} '{}' (expected {}, or an integer)", what, value,
                         KeywordList(keywords)));
      }
      Fail(fmt::format("{}={}: {}", key, value, e.what()));
    }
  }

  void SetString(FieldId field, const std::string& value, RowTemplate& row) {
    switch (field) {
      case FieldId::kName:
        if (auto* call = std::get_if<ApiCallRow>(&row)) {
          call->name = value;
        } else {
          std::get<KernelRow>(row).short_name = value;
        }
        return;
      case FieldId::kDemangled:
        std::get<KernelRow>(row).demangled_name = value;
        return;
      case FieldId::kText:
        std::get<NvtxRow>(row).text = value;
        return;
      case FieldId::kRegistered:
        std::get<NvtxRow>(row).registered_text = value;
        return;
      default:
        Fail("internal error: not a string field");
    }
  }

  std::pair<std::string, std::string> SplitKeyValue(const Token& token,
                                                    std::string_view directive) const {
    if (token.equals == std::string::npos) {
      Fail(fmt::format("expected KEY=VALUE after '{}', got '{}'", directive, token.text));
    }
    std::string key = token.text.substr(0, token.equals);
    std::string value = token.text.substr(token.equals + 1);
    if (key.empty()) Fail(fmt::format("missing key before '=' in '{}'", token.text));
    if (value.empty()) Fail(fmt::format("missing value for '{}'", key));
    return {std::move(key), std::move(value)};
  }

  static const KeySpec* FindKey(const std::vector<std::span<const KeySpec>>& specs,
                                std::string_view key) {
    for (std::span<const KeySpec> group : specs) {
      for (const KeySpec& spec : group) {
        if (spec.key == key) return &spec;
      }
    }
    return nullptr;
  }

  static std::string KeyList(const std::vector<std::span<const KeySpec>>& specs) {
    std::string list;
    for (std::span<const KeySpec> group : specs) {
      for (const KeySpec& spec : group) {
        if (!list.empty()) list += ", ";
        list += spec.key;
      }
    }
    return list;
  }

  IntExpression ParseExpression(std::string_view key, const std::string& value, bool is_time) {
    try {
      return IntExpression::Parse(value, {.variable_count = Depth(), .allow_time_units = is_time});
    } catch (const ExpressionError& e) {
      Fail(fmt::format("{}={}: {}", key, value, e.what()));
    }
  }

  std::string_view text_;
  const std::string& source_;
  int line_ = 0;
  bool seen_directive_ = false;
  bool seen_schema_ = false;
  std::vector<Statement> open_repeats_;  // innermost last; moved into its parent on '}'
  ParsedDescription parsed_;
};

// Expands the statement tree into builder calls, one row at a time.
class Executor {
 public:
  Executor(const std::string& source, NsysSqliteBuilder& builder)
      : source_(source), builder_(builder) {}

  void Run(std::vector<Statement>& statements) { RunBlock(statements, 0, 0); }

 private:
  void RunBlock(std::vector<Statement>& block, int depth, int64_t shift) {
    for (Statement& statement : block) {
      try {
        RunStatement(statement, depth, shift);
      } catch (const DescriptionError&) {
        throw;
      } catch (const ExpressionError& e) {
        Fail(statement, depth, e.what());
      } catch (const std::invalid_argument& e) {
        // The builder rejected a value (e.g. a pid wider than 24 bits); say where it came from.
        std::string_view message = e.what();
        constexpr std::string_view kPrefix = "NsysSqliteBuilder: ";
        if (message.starts_with(kPrefix)) message.remove_prefix(kPrefix.size());
        Fail(statement, depth, message);
      }
    }
  }

  void RunStatement(Statement& statement, int depth, int64_t shift) {
    switch (statement.directive) {
      case Directive::kRepeat:
        return RunRepeat(statement, depth, shift);
      case Directive::kGpu:
        builder_.AddGpu(Narrow<int32_t>(statement, depth, statement.fields[0]),
                        statement.strings[0]);
        return;
      case Directive::kDomain: {
        const uint32_t id = Narrow<uint32_t>(statement, depth, statement.fields[0]);
        const uint32_t pid =
            statement.fields.size() > 1 ? Pid(statement, depth, statement.fields[1]) : 4242;
        builder_.AddDomain(id, statement.strings[0], pid);
        return;
      }
      case Directive::kEmptyTable:
        builder_.CreateEmptyTable(statement.table);
        return;
      case Directive::kEnum:
        builder_.SetEnumRow(statement.strings[0],
                            Narrow<int>(statement, depth, statement.fields[0]),
                            statement.strings[1], statement.strings[2]);
        return;
      case Directive::kMeta:
        builder_.SetMetadata(statement.strings[0], statement.strings[1]);
        return;
      case Directive::kKernel:
      case Directive::kMemcpy:
      case Directive::kMemset:
      case Directive::kNvtx:
      case Directive::kApi:
        for (const Field& field : statement.fields)
          Apply(statement, depth, shift, field);
        std::visit(
            [this](const auto& row) {
              using Row = std::decay_t<decltype(row)>;
              if constexpr (std::is_same_v<Row, KernelRow>) builder_.AddKernel(row);
              if constexpr (std::is_same_v<Row, MemcpyRow>) builder_.AddMemcpy(row);
              if constexpr (std::is_same_v<Row, MemsetRow>) builder_.AddMemset(row);
              if constexpr (std::is_same_v<Row, NvtxRow>) builder_.AddNvtx(row);
              if constexpr (std::is_same_v<Row, ApiCallRow>) builder_.AddApiCall(row);
            },
            statement.row);
        return;
    }
  }

  void RunRepeat(Statement& statement, int depth, int64_t shift) {
    const int64_t count = statement.count.Evaluate(variables_);
    if (count < 0) Fail(statement, depth, fmt::format("repeat count {} is negative", count));
    const int64_t step = statement.step.Evaluate(variables_);
    for (int64_t index = 0; index < count; ++index) {
      variables_[static_cast<std::size_t>(depth)] = index;
      int64_t offset = 0;
      int64_t inner_shift = 0;
      if (__builtin_mul_overflow(index, step, &offset) ||
          __builtin_add_overflow(shift, offset, &inner_shift)) {
        Fail(statement, depth + 1, "time shift index*step overflows");
      }
      RunBlock(statement.body, depth + 1, inner_shift);
    }
  }

  void Apply(Statement& statement, int depth, int64_t shift, const Field& field) {
    const int64_t value = Evaluate(statement, depth, field);
    if (field.id == FieldId::kStart || field.id == FieldId::kEnd) {
      int64_t time = 0;
      if (__builtin_add_overflow(value, shift, &time)) {
        Fail(statement, depth, fmt::format("{}: time overflows after the repeat shift", field.key));
      }
      const bool is_start = field.id == FieldId::kStart;
      std::visit(
          [is_start, time](auto& row) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(row)>, std::monostate>) {
              if (is_start) {
                row.start_ns = time;
              } else {
                row.end_ns = time;
              }
            }
          },
          statement.row);
      return;
    }
    RowTemplate& row = statement.row;
    if (auto* kernel = std::get_if<KernelRow>(&row)) {
      ApplyKernel(*kernel, statement, depth, field, value);
    } else if (auto* memcpy = std::get_if<MemcpyRow>(&row)) {
      ApplyMemcpy(*memcpy, statement, depth, field, value);
    } else if (auto* memset = std::get_if<MemsetRow>(&row)) {
      ApplyMemset(*memset, statement, depth, field, value);
    } else if (auto* nvtx = std::get_if<NvtxRow>(&row)) {
      ApplyNvtx(*nvtx, statement, depth, field, value);
    } else if (auto* call = std::get_if<ApiCallRow>(&row)) {
      ApplyApiCall(*call, statement, depth, field, value);
    }
  }

  // Fields common to kernel, memcpy and memset rows. Returns false if `field` is not one.
  template <typename Row>
  bool ApplyCommon(Row& row, const Statement& statement, int depth, const Field& field,
                   int64_t value) {
    switch (field.id) {
      case FieldId::kDevice:
        row.device = Narrow<int32_t>(statement, depth, field, value);
        return true;
      case FieldId::kContext:
        row.context = Narrow<uint32_t>(statement, depth, field, value);
        return true;
      case FieldId::kStream:
        row.stream = Narrow<uint32_t>(statement, depth, field, value);
        return true;
      case FieldId::kPid:
        row.pid = Pid(statement, depth, field, value);
        return true;
      case FieldId::kCorrelation:
        row.correlation = Narrow<uint32_t>(statement, depth, field, value);
        return true;
      default:
        return false;
    }
  }

  void ApplyKernel(KernelRow& row, const Statement& statement, int depth, const Field& field,
                   int64_t value) {
    if (ApplyCommon(row, statement, depth, field, value)) return;
    const int offset = static_cast<int>(field.id);
    if (field.id >= FieldId::kGridX && field.id <= FieldId::kGridZ) {
      row.grid[static_cast<std::size_t>(offset - static_cast<int>(FieldId::kGridX))] =
          Narrow<uint32_t>(statement, depth, field, value);
    } else if (field.id >= FieldId::kBlockX && field.id <= FieldId::kBlockZ) {
      row.block[static_cast<std::size_t>(offset - static_cast<int>(FieldId::kBlockX))] =
          Narrow<uint32_t>(statement, depth, field, value);
    }
  }

  void ApplyMemcpy(MemcpyRow& row, const Statement& statement, int depth, const Field& field,
                   int64_t value) {
    if (ApplyCommon(row, statement, depth, field, value)) return;
    switch (field.id) {
      case FieldId::kCopyKind:
        row.copy_kind = Narrow<int>(statement, depth, field, value);
        return;
      case FieldId::kBytes:
        row.bytes = Narrow<uint64_t>(statement, depth, field, value);
        return;
      case FieldId::kSrcKind:
        row.src_kind = Narrow<int>(statement, depth, field, value);
        return;
      case FieldId::kDstKind:
        row.dst_kind = Narrow<int>(statement, depth, field, value);
        return;
      case FieldId::kSrcDevice:
        row.src_device = Narrow<int32_t>(statement, depth, field, value);
        return;
      case FieldId::kDstDevice:
        row.dst_device = Narrow<int32_t>(statement, depth, field, value);
        return;
      case FieldId::kCopyCount:
        row.copy_count = value;
        return;
      default:
        return;
    }
  }

  void ApplyMemset(MemsetRow& row, const Statement& statement, int depth, const Field& field,
                   int64_t value) {
    if (ApplyCommon(row, statement, depth, field, value)) return;
    switch (field.id) {
      case FieldId::kBytes:
        row.bytes = Narrow<uint64_t>(statement, depth, field, value);
        return;
      case FieldId::kValue:
        row.value = Narrow<int>(statement, depth, field, value);
        return;
      case FieldId::kMemKind:
        row.mem_kind = Narrow<int>(statement, depth, field, value);
        return;
      default:
        return;
    }
  }

  // The pid and tid fields of NVTX and API-call rows. Returns false if `field` is not one.
  template <typename Row>
  bool ApplyPidTid(Row& row, const Statement& statement, int depth, const Field& field,
                   int64_t value) {
    switch (field.id) {
      case FieldId::kPid:
        row.pid = Pid(statement, depth, field, value);
        return true;
      case FieldId::kTid:
        row.tid = Pid(statement, depth, field, value);
        return true;
      default:
        return false;
    }
  }

  void ApplyNvtx(NvtxRow& row, const Statement& statement, int depth, const Field& field,
                 int64_t value) {
    if (ApplyPidTid(row, statement, depth, field, value)) return;
    switch (field.id) {
      case FieldId::kDomain:
        row.domain_id = Narrow<uint32_t>(statement, depth, field, value);
        return;
      case FieldId::kEventType:
        row.event_type = Narrow<int>(statement, depth, field, value);
        return;
      case FieldId::kRangeId:
        row.range_id = value;
        return;
      default:
        return;
    }
  }

  void ApplyApiCall(ApiCallRow& row, const Statement& statement, int depth, const Field& field,
                    int64_t value) {
    if (ApplyPidTid(row, statement, depth, field, value)) return;
    if (field.id == FieldId::kCorrelation) {
      row.correlation = Narrow<uint32_t>(statement, depth, field, value);
    }
  }

  int64_t Evaluate(const Statement& statement, int depth, const Field& field) {
    try {
      return field.expression.Evaluate(variables_);
    } catch (const ExpressionError& e) {
      Fail(statement, depth, fmt::format("{}={}: {}", field.key, field.source, e.what()));
    }
  }

  template <typename T>
  T Narrow(const Statement& statement, int depth, const Field& field) {
    return Narrow<T>(statement, depth, field, Evaluate(statement, depth, field));
  }

  template <typename T>
  T Narrow(const Statement& statement, int depth, const Field& field, int64_t value) {
    if (!std::in_range<T>(value)) {
      Fail(statement, depth,
           fmt::format("{}={} is out of range ({}..{})", field.key, value,
                       std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    }
    return static_cast<T>(value);
  }

  // Process and thread ids occupy 24 bits of nsys's globalPid/globalTid.
  uint32_t Pid(const Statement& statement, int depth, const Field& field) {
    return Pid(statement, depth, field, Evaluate(statement, depth, field));
  }
  uint32_t Pid(const Statement& statement, int depth, const Field& field, int64_t value) {
    if (value < 0 || value > kMax24Bits) {
      Fail(statement, depth,
           fmt::format("{}={} is out of range (0..{}: nsys packs it into 24 bits)", field.key,
                       value, kMax24Bits));
    }
    return static_cast<uint32_t>(value);
  }

  [[noreturn]] void Fail(const Statement& statement, int depth, std::string_view message) const {
    std::string where;
    for (int level = 0; level < depth; ++level) {
      where += fmt::format("{}{}={}", level == 0 ? " (at " : ", ", "ijk"[level],
                           variables_[static_cast<std::size_t>(level)]);
    }
    if (!where.empty()) where += ")";
    throw DescriptionError(Located(source_, statement.line, fmt::format("{}{}", message, where)));
  }

  const std::string& source_;
  NsysSqliteBuilder& builder_;
  std::array<int64_t, kMaxRepeatDepth> variables_{};
};

}  // namespace

void BuildFromDescription(std::string_view text, const std::string& source_name,
                          const std::filesystem::path& output) {
  // Parse everything first: a syntax error anywhere must not cost a half-written file.
  ParsedDescription parsed = Parser(text, source_name).Parse();
  NsysSqliteBuilder builder(output, parsed.options);
  Executor(source_name, builder).Run(parsed.statements);
  builder.Finish();
}

}  // namespace gpuroof::testsupport
