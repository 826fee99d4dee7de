#include "gpuroof/model/enum_names.h"

#include <array>
#include <cctype>
#include <string_view>

#include <gtest/gtest.h>

#include "gpuroof/model/trace.h"

namespace gpuroof {
namespace {

enum class Colour { kRed, kGreen, kBlue };

constexpr std::array<EnumName<Colour>, 2> kColourNames = {{
    {Colour::kRed, "red"},
    {Colour::kGreen, "green"},
}};

bool EqualIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

TEST(EnumNamesTest, NameAndValueReadTheSameRows) {
  EXPECT_EQ(NameOf(kColourNames, Colour::kGreen, "?"), "green");
  EXPECT_EQ(ValueNamed(kColourNames, "red"), Colour::kRed);
}

TEST(EnumNamesTest, AValueOrNameTheTableLacksIsSaid) {
  EXPECT_EQ(NameOf(kColourNames, Colour::kBlue, "?"), "?");
  EXPECT_EQ(ValueNamed(kColourNames, "blue"), std::nullopt);
  EXPECT_EQ(ValueNamed(kColourNames, "RED"), std::nullopt);  // exact by default
  EXPECT_EQ(ValueNamed(kColourNames, "RED", EqualIgnoringCase), Colour::kRed);
}

TEST(EnumNamesTest, FindRowMatchesOnTheNamedMember) {
  const EnumName<Colour>* row =
      FindRow(kColourNames, &EnumName<Colour>::name, std::string_view("green"));
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->value, Colour::kGreen);
  EXPECT_EQ(FindRow(kColourNames, &EnumName<Colour>::value, Colour::kBlue), nullptr);
}

// Every memory kind's name parses back to it: the Kineto reader and the writers share this table.
TEST(EnumNamesTest, EveryMemoryKindNameRoundTrips) {
  for (const EnumName<MemoryKind>& row : kMemoryKindNames) {
    EXPECT_EQ(MemoryKindName(row.value), row.name);
    EXPECT_EQ(ValueNamed(kMemoryKindNames, row.name), row.value);
  }
}

}  // namespace
}  // namespace gpuroof
