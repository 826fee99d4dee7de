#include "gpuroof/campaign/placeholders.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {
namespace {

TEST(Placeholders, ExpandsNamesAndKeepsDoubledBraces) {
  std::map<std::string, std::string> values = {{"cap", "1700"}, {"frames", "20000"}};
  EXPECT_EQ(ExpandPlaceholders("--cap={cap}", values, "s"), "--cap=1700");
  EXPECT_EQ(ExpandPlaceholders("{frames}x{cap}", values, "s"), "20000x1700");
  EXPECT_EQ(ExpandPlaceholders("{{cap}} {cap}", values, "s"), "{cap} 1700");
  EXPECT_EQ(ExpandPlaceholders("plain", values, "s"), "plain");
}

TEST(Placeholders, ValuesAreInsertedLiterallyNeverReinterpreted) {
  std::map<std::string, std::string> values = {{"v", "a;b \"c\" $(rm -rf x) {cap}"}};
  EXPECT_EQ(ExpandPlaceholders("{v}", values, "s"), "a;b \"c\" $(rm -rf x) {cap}");
}

TEST(Placeholders, NamesInOrder) {
  EXPECT_EQ(PlaceholderNames("{a}-{b}{{c}}{a}", "s"), (std::vector<std::string>{"a", "b", "a"}));
}

TEST(Placeholders, ErrorsNameTheSource) {
  std::map<std::string, std::string> values;
  try {
    ExpandPlaceholders("--x={nope}", values, "f.toml:3");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "f.toml:3: unknown placeholder {nope} in \"--x={nope}\"");
  }
  EXPECT_THROW(PlaceholderNames("{open", "s"), InputError);
  EXPECT_THROW(PlaceholderNames("close}", "s"), InputError);
  EXPECT_THROW(PlaceholderNames("{}", "s"), InputError);
}

}  // namespace
}  // namespace gpuroof
