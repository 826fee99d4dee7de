#include "gpuroof/format/json_writer.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

TEST(JsonQuote, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonQuote("x\ny\t\x01"), "\"x\\ny\\t\\u0001\"");
  EXPECT_EQ(JsonQuote("void k<float>(int*)"), "\"void k<float>(int*)\"");
}

TEST(JsonWriter, NestedDocument) {
  JsonWriter json;
  json.BeginObject();
  json.Key("a").Int(-3);
  json.Key("b").BeginArray().Double(0.1).Double(std::nan("")).Null().EndArray();
  json.Key("c").BeginObject().EndObject();
  json.Key("d").Double(std::optional<double>{});
  json.Key("e").Bool(true);
  json.EndObject();
  EXPECT_EQ(json.str(),
            "{\n  \"a\": -3,\n  \"b\": [\n    0.1,\n    null,\n    null\n  ],\n  \"c\": {},\n"
            "  \"d\": null,\n  \"e\": true\n}\n");
}

TEST(JsonDoublesMarked, WholeDoublesGetADecimalPointWhileItLives) {
  auto render = [] {
    JsonWriter json;
    json.BeginArray().Double(1.0).Double(0.25).Double(1e300).Int(7).Double(std::nan("")).EndArray();
    return json.str();
  };
  const std::string plain = render();
  EXPECT_EQ(plain, "[\n  1,\n  0.25,\n  1e+300,\n  7,\n  null\n]\n");
  {
    JsonDoublesMarked marked;
    EXPECT_EQ(render(), "[\n  1.0,\n  0.25,\n  1e+300,\n  7,\n  null\n]\n");
  }
  EXPECT_EQ(render(), plain);
}

}  // namespace
}  // namespace gpuroof
