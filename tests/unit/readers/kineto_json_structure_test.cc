// The structure scanner that cuts the event array into chunks of whole events, against a plain
// byte-by-byte reference on texts full of strings, escapes and brackets.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuroof/readers/json_structure_scanner.h"

namespace gpuroof {
namespace {

// Offsets just past every closing bracket that returns to `record_depth`, found one byte at a
// time; stops past a bracket that goes below it.
std::vector<size_t> ReferenceEnds(const std::string& text, int depth, int record_depth) {
  std::vector<size_t> ends;
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      --depth;
      if (depth == record_depth) ends.push_back(i + 1);
      if (depth < record_depth) {
        ends.push_back(i + 1);
        break;
      }
    }
  }
  return ends;
}

// The scanner fed in pieces of `piece` bytes (as the reader refills), ends as offsets in text.
std::vector<size_t> ScannerEnds(const std::string& text, int depth, int record_depth,
                                size_t piece) {
  JsonStructureScanner scanner(depth);
  std::vector<size_t> ends;
  size_t scanned = 0;
  size_t available = 0;
  for (;;) {
    available = std::min(text.size(), available + piece);
    bool last = available == text.size();
    std::vector<size_t> found;
    JsonStructureScanner::Result r =
        last ? scanner.ScanTail(text.data() + scanned, available - scanned, record_depth, found)
             : scanner.Scan(text.data() + scanned, available - scanned, record_depth, found);
    for (size_t e : found)
      ends.push_back(scanned + e);
    scanned += r.scanned;
    if (r.left) {
      ends.push_back(scanned);
      return ends;
    }
    if (last) return ends;
  }
}

TEST(JsonStructureScanner, FindsEventEndsThroughStringsAndEscapes) {
  std::string text =
      R"({"name": "a } ] { [", "args": {"x": [1, 2]}}, {"name": "q \" } \\", "v": "\\\\"}, )"
      R"({"name": "\\\"{"}])";
  std::vector<size_t> want = ReferenceEnds(text, 1, 1);
  ASSERT_EQ(want.size(), 4u);  // three events and the closing bracket
  EXPECT_EQ(ScannerEnds(text, 1, 1, 1 << 20), want);
  EXPECT_EQ(ScannerEnds(text, 1, 1, 64), want);
}

TEST(JsonStructureScanner, MatchesTheReferenceOnRandomTexts) {
  std::mt19937 random(12345);
  // Backslash runs of every length meet block boundaries at every offset.
  const std::string alphabet = "ab \\\\\\\"\"{}[]:,";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    int depth = 1;
    while (text.size() < 2000) {
      text += "{\"k\": \"";
      size_t n = random() % 150;
      for (size_t i = 0; i < n; ++i) {
        char c = alphabet[random() % alphabet.size()];
        if (c == '"') text += '\\';  // keep the string closed where the event says
        if (c == '\\') {
          text += random() % 2 ? "\\\\" : "\\\"";
          continue;
        }
        text += c;
      }
      text += "\", \"a\": [[1], {\"b\": []}]}, ";
    }
    text += "]";
    std::vector<size_t> want = ReferenceEnds(text, depth, 1);
    for (size_t piece : {size_t{64}, size_t{100}, size_t{4096}}) {
      ASSERT_EQ(ScannerEnds(text, depth, 1, piece), want)
          << "round " << round << " piece " << piece;
    }
  }
}

// Text that cannot be JSON, where a stray quote inverted the string state: a string's closing
// quote followed by something other than whitespace , : } ].
size_t NotJsonAt(const std::string& text) {
  JsonStructureScanner scanner(1);
  std::vector<size_t> ends;
  return scanner.ScanTail(text.data(), text.size(), 1, ends).not_json_at;
}

TEST(JsonStructureScanner, MarksTextThatCannotBeJson) {
  EXPECT_EQ(NotJsonAt(R"({"a": "x", "b": ["y" , "z"]}, {"c": "\"}"} )"
                      "\n {\"d\":\t\"e\"\n}]"),
            JsonStructureScanner::kNone);
  // pytorch #121219: the closing quote of "@" is followed by a letter.
  std::string stray = R"({"name": "@"sP(0): x", "pid": 1},)";
  EXPECT_EQ(NotJsonAt(stray), stray.find("sP"));
  // An unescaped quote then a space: the next closing quote is followed by a letter.
  std::string spaced = "{\"name\": \"a\" b\", \"pid\": 1},\n{\"name\": \"c\"}]";
  EXPECT_EQ(NotJsonAt(spaced), spaced.find("pid"));
  // Across a 64-byte block boundary: the quote is the block's last byte.
  std::string boundary = "{\"n\": \"" + std::string(63 - 7, 'a') + "\"b\"}]";
  ASSERT_EQ(boundary[63], '"');
  EXPECT_EQ(NotJsonAt(boundary), 64u);
}

}  // namespace
}  // namespace gpuroof
