// Small integer expressions for trace descriptions, e.g. `13+i%4` or `1ms+i*16.35us`.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace gpuroof::testsupport {

// Thrown for syntax errors and for arithmetic errors (overflow, division by zero). The message
// has no source location; the caller knows it.
class ExpressionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An integer expression compiled once and evaluated many times, so that a `repeat` of ten
// million rows does not re-parse its text per row.
//
// Grammar: + - * / % (C++ semantics: / truncates toward zero), unary + and -, parentheses,
// non-negative literals, and the loop indices i, j, k. A literal may have a decimal point and,
// where time units are allowed, a suffix ns, us, ms or s; its value in the base unit (ns) must
// be a whole number, so 16.35us = 16350 but 1.5ns is an error. All arithmetic is checked.
class IntExpression {
 public:
  struct Options {
    // How many loop indices are bound: 0 none, 1 i, 2 i and j, 3 i, j and k.
    int variable_count = 0;
    // Whether literals may carry ns/us/ms/s suffixes (time values only).
    bool allow_time_units = false;
  };

  // The constant 0.
  IntExpression() = default;

  // Throws ExpressionError describing the first problem in `text`.
  static IntExpression Parse(std::string_view text, Options options);

  // `variables` holds i, j, k in that order; it needs at least `variable_count` values.
  // Throws ExpressionError on overflow or division by zero.
  int64_t Evaluate(std::span<const int64_t> variables) const;

  // True when the expression uses no loop index (it was folded to one value at parse time).
  bool is_constant() const { return code_.size() == 1 && code_[0].op == Op::kConstant; }

 private:
  enum class Op : uint8_t { kConstant, kVariable, kAdd, kSub, kMul, kDiv, kMod, kNegate };
  struct Instruction {
    Op op;
    int64_t operand;  // the constant, or the variable index
  };
  class Parser;

  // Reverse Polish code: short, branch-light, and needs no allocation to evaluate.
  std::vector<Instruction> code_{{Op::kConstant, 0}};
};

}  // namespace gpuroof::testsupport
