#include "support/int_expression.h"

#include <array>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace gpuroof::testsupport {
namespace {

int64_t Eval(const std::string& text, std::array<int64_t, 3> vars = {0, 0, 0}, int var_count = 3,
             bool time = false) {
  return IntExpression::Parse(text, {.variable_count = var_count, .allow_time_units = time})
      .Evaluate(vars);
}

int64_t Time(const std::string& text) {
  return Eval(text, {0, 0, 0}, 0, true);
}

std::string ErrorOf(const std::string& text, int var_count = 3, bool time = false) {
  try {
    Eval(text, {0, 0, 0}, var_count, time);
  } catch (const ExpressionError& e) {
    return e.what();
  }
  return "no error";
}

TEST(IntExpressionTest, Literals) {
  EXPECT_EQ(Eval("0"), 0);
  EXPECT_EQ(Eval("42"), 42);
  EXPECT_EQ(Eval("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(Eval(" 7 "), 7);
  EXPECT_EQ(Eval("2.0"), 2);
}

TEST(IntExpressionTest, PrecedenceAndAssociativity) {
  EXPECT_EQ(Eval("1+2*3"), 7);
  EXPECT_EQ(Eval("(1+2)*3"), 9);
  EXPECT_EQ(Eval("10-4-3"), 3);
  EXPECT_EQ(Eval("100/10/5"), 2);
  EXPECT_EQ(Eval("13+7%4"), 16);
  EXPECT_EQ(Eval("2*(3+(4-1))*2"), 24);
  EXPECT_EQ(Eval("1 + 2 * 3 - 4 / 2"), 5);
}

TEST(IntExpressionTest, UnaryOperators) {
  EXPECT_EQ(Eval("-5"), -5);
  EXPECT_EQ(Eval("--5"), 5);
  EXPECT_EQ(Eval("+5"), 5);
  EXPECT_EQ(Eval("3*-2"), -6);
  EXPECT_EQ(Eval("-(2+3)*2"), -10);
}

TEST(IntExpressionTest, DivisionTruncatesTowardZeroLikeCpp) {
  EXPECT_EQ(Eval("-7/2"), -3);
  EXPECT_EQ(Eval("-7%2"), -1);
  EXPECT_EQ(Eval("7%-2"), 1);
}

TEST(IntExpressionTest, LoopVariables) {
  EXPECT_EQ(Eval("13+i%4", {0, 0, 0}), 13);
  EXPECT_EQ(Eval("13+i%4", {5, 0, 0}), 14);
  EXPECT_EQ(Eval("100+i", {41, 0, 0}), 141);
  EXPECT_EQ(Eval("i*100+j*10+k", {1, 2, 3}), 123);
  EXPECT_FALSE(IntExpression::Parse("i", {.variable_count = 1}).is_constant());
  EXPECT_TRUE(IntExpression::Parse("1+2", {}).is_constant());
  EXPECT_TRUE(IntExpression().is_constant());
  EXPECT_EQ(IntExpression().Evaluate({}), 0);
}

TEST(IntExpressionTest, TimeUnits) {
  EXPECT_EQ(Time("5"), 5);
  EXPECT_EQ(Time("5ns"), 5);
  EXPECT_EQ(Time("3us"), 3000);
  EXPECT_EQ(Time("1ms"), 1000000);
  EXPECT_EQ(Time("2s"), 2000000000);
  EXPECT_EQ(Time("16.35us"), 16350);
  EXPECT_EQ(Time("0.5us"), 500);
  EXPECT_EQ(Time("1.5s"), 1500000000);
  EXPECT_EQ(Time("-2ms"), -2000000);
  EXPECT_EQ(Time("1ms+2*16.35us"), 1032700);
  EXPECT_EQ(Eval("1ms+i*16350", {2, 0, 0}, 1, true), 1032700);
}

TEST(IntExpressionTest, RejectsNonIntegralTimes) {
  EXPECT_EQ(ErrorOf("1.5ns", 0, true), "'1.5ns' is not a whole number of nanoseconds");
  EXPECT_EQ(ErrorOf("1.0005us", 0, true), "'1.0005us' is not a whole number of nanoseconds");
  EXPECT_EQ(ErrorOf("1.5"), "'1.5' is not a whole number");
}

TEST(IntExpressionTest, RejectsUnitsOutsideTimes) {
  EXPECT_EQ(ErrorOf("3us"), "'3us': a time unit is only allowed in times");
  EXPECT_EQ(ErrorOf("3h", 0, true), "bad number '3h' (unknown unit 'h'; units are ns, us, ms, s)");
}

TEST(IntExpressionTest, SyntaxErrors) {
  EXPECT_EQ(ErrorOf(""), "empty expression");
  EXPECT_EQ(ErrorOf("1+"), "'1+' ends where a value was expected");
  EXPECT_EQ(ErrorOf("(1+2"), "missing ')' in '(1+2'");
  EXPECT_EQ(ErrorOf("1+2)"), "unexpected ')' in '1+2)'");
  EXPECT_EQ(ErrorOf("1..2"), "bad number '1..2'");
  EXPECT_EQ(ErrorOf("x+1"), "unknown name 'x' in 'x+1' (loop indices are i, j, k)");
  EXPECT_EQ(ErrorOf("1 2"), "unexpected '2' in '1 2'");
  EXPECT_EQ(ErrorOf("2^3"), "unexpected '^' in '2^3'");
}

TEST(IntExpressionTest, VariablesMustBeBound) {
  EXPECT_EQ(ErrorOf("i", 0), "'i' is only defined inside a repeat block");
  EXPECT_EQ(ErrorOf("j", 1), "'j' is only defined inside a repeat nested in another");
  EXPECT_EQ(ErrorOf("k", 2), "'k' is only defined inside a repeat nested two deep");
}

TEST(IntExpressionTest, ArithmeticErrors) {
  EXPECT_EQ(ErrorOf("1/0"), "division by zero");
  EXPECT_EQ(ErrorOf("1%0"), "modulo by zero");
  EXPECT_EQ(ErrorOf("9223372036854775807+1"), "integer overflow");
  EXPECT_EQ(ErrorOf("99999999999999999999"), "number '99999999999999999999' is out of range");
  EXPECT_EQ(ErrorOf("10000000000s", 0, true), "number '10000000000s' is out of range");
  // Errors that depend on a loop index surface at evaluation time.
  const IntExpression e = IntExpression::Parse("10/i", {.variable_count = 1});
  EXPECT_EQ(e.Evaluate(std::array<int64_t, 1>{5}), 2);
  EXPECT_THROW(e.Evaluate(std::array<int64_t, 1>{0}), ExpressionError);
}

TEST(IntExpressionTest, DeepNestingIsRejectedNotCrashing) {
  std::string deep;
  for (int n = 0; n < 100; ++n)
    deep += "1+(";
  deep += "1";
  for (int n = 0; n < 100; ++n)
    deep += ")";
  EXPECT_EQ(ErrorOf(deep).find("nested too deeply") != std::string::npos, true);
  std::string ok;
  for (int n = 0; n < 30; ++n)
    ok += "1+(";
  ok += "1";
  for (int n = 0; n < 30; ++n)
    ok += ")";
  EXPECT_EQ(Eval(ok), 31);
}

}  // namespace
}  // namespace gpuroof::testsupport
