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

}  // namespace
}  // namespace gpuroof
