#include "support/int_expression.h"

#include <array>
#include <cctype>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace gpuroof::testsupport {
namespace {

// Bounds the evaluation stack so Evaluate() can use a fixed array; only absurdly nested
// parentheses reach it.
constexpr int kMaxStackDepth = 64;

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsAlpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}

int64_t CheckedAdd(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) throw ExpressionError("integer overflow");
  return result;
}

int64_t CheckedSub(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_sub_overflow(a, b, &result)) throw ExpressionError("integer overflow");
  return result;
}

int64_t CheckedMul(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) throw ExpressionError("integer overflow");
  return result;
}

int64_t CheckedDiv(int64_t a, int64_t b) {
  if (b == 0) throw ExpressionError("division by zero");
  if (a == std::numeric_limits<int64_t>::min() && b == -1) {
    throw ExpressionError("integer overflow");
  }
  return a / b;
}

int64_t CheckedMod(int64_t a, int64_t b) {
  if (b == 0) throw ExpressionError("modulo by zero");
  if (b == -1) return 0;  // avoids the INT64_MIN % -1 trap
  return a % b;
}

}  // namespace

class IntExpression::Parser {
 public:
  Parser(std::string_view text, Options options) : text_(text), options_(options) {}

  std::vector<Instruction> Run() {
    SkipSpace();
    if (pos_ == text_.size()) throw ExpressionError("empty expression");
    ParseSum();
    SkipSpace();
    if (pos_ != text_.size()) {
      throw ExpressionError(fmt::format("unexpected '{}' in '{}'", text_[pos_], text_));
    }
    return std::move(code_);
  }

 private:
  void ParseSum() {
    ParseProduct();
    for (;;) {
      SkipSpace();
      if (Accept('+')) {
        ParseProduct();
        Emit(Op::kAdd);
      } else if (Accept('-')) {
        ParseProduct();
        Emit(Op::kSub);
      } else {
        return;
      }
    }
  }

  void ParseProduct() {
    ParseUnary();
    for (;;) {
      SkipSpace();
      Op op;
      if (Accept('*')) {
        op = Op::kMul;
      } else if (Accept('/')) {
        op = Op::kDiv;
      } else if (Accept('%')) {
        op = Op::kMod;
      } else {
        return;
      }
      ParseUnary();
      Emit(op);
    }
  }

  void ParseUnary() {
    SkipSpace();
    if (Accept('-')) {
      ParseUnary();
      Emit(Op::kNegate);
    } else if (Accept('+')) {
      ParseUnary();
    } else {
      ParsePrimary();
    }
  }

  void ParsePrimary() {
    SkipSpace();
    if (pos_ == text_.size()) {
      throw ExpressionError(fmt::format("'{}' ends where a value was expected", text_));
    }
    const char c = text_[pos_];
    if (Accept('(')) {
      ParseSum();
      SkipSpace();
      if (!Accept(')')) throw ExpressionError(fmt::format("missing ')' in '{}'", text_));
    } else if (IsDigit(c) || c == '.') {
      Push(Op::kConstant, ParseLiteral());
    } else if (IsAlpha(c) || c == '_') {
      ParseVariable();
    } else {
      throw ExpressionError(fmt::format("unexpected '{}' in '{}'", c, text_));
    }
  }

  void ParseVariable() {
    const std::size_t begin = pos_;
    while (pos_ < text_.size() &&
           (IsAlpha(text_[pos_]) || IsDigit(text_[pos_]) || text_[pos_] == '_')) {
      ++pos_;
    }
    const std::string_view name = text_.substr(begin, pos_ - begin);
    int index = -1;
    if (name == "i") index = 0;
    if (name == "j") index = 1;
    if (name == "k") index = 2;
    if (index < 0) {
      throw ExpressionError(
          fmt::format("unknown name '{}' in '{}' (loop indices are i, j, k)", name, text_));
    }
    if (index >= options_.variable_count) {
      static constexpr std::array<const char*, 3> kWhere = {"inside a repeat block",
                                                            "inside a repeat nested in another",
                                                            "inside a repeat nested two deep"};
      throw ExpressionError(
          fmt::format("'{}' is only defined {}", name, kWhere[static_cast<std::size_t>(index)]));
    }
    Push(Op::kVariable, index);
  }

  // digits[.digits][unit]; the value is scaled to the base unit and must come out whole.
  int64_t ParseLiteral() {
    const std::size_t begin = pos_;
    int64_t mantissa = 0;
    int64_t divisor = 1;
    bool any_digit = false;
    bool in_fraction = false;
    while (pos_ < text_.size() && (IsDigit(text_[pos_]) || text_[pos_] == '.')) {
      const char c = text_[pos_++];
      if (c == '.') {
        if (in_fraction) throw BadNumber(begin);
        in_fraction = true;
        continue;
      }
      any_digit = true;
      if (__builtin_mul_overflow(mantissa, 10, &mantissa) ||
          __builtin_add_overflow(mantissa, c - '0', &mantissa) ||
          (in_fraction && __builtin_mul_overflow(divisor, 10, &divisor))) {
        throw ExpressionError(fmt::format("number '{}' is out of range", Word(begin)));
      }
    }
    if (!any_digit) throw BadNumber(begin);
    const std::size_t unit_begin = pos_;
    while (pos_ < text_.size() && (IsAlpha(text_[pos_]) || IsDigit(text_[pos_])))
      ++pos_;
    const std::string_view unit = text_.substr(unit_begin, pos_ - unit_begin);
    int64_t scale = 1;
    if (!unit.empty()) {
      if (unit == "ns") {
        scale = 1;
      } else if (unit == "us") {
        scale = 1'000;
      } else if (unit == "ms") {
        scale = 1'000'000;
      } else if (unit == "s") {
        scale = 1'000'000'000;
      } else {
        throw ExpressionError(fmt::format(
            "bad number '{}' (unknown unit '{}'; units are ns, us, ms, s)", Word(begin), unit));
      }
      if (!options_.allow_time_units) {
        throw ExpressionError(
            fmt::format("'{}': a time unit is only allowed in times", Word(begin)));
      }
    }
    int64_t scaled = 0;
    if (__builtin_mul_overflow(mantissa, scale, &scaled)) {
      throw ExpressionError(fmt::format("number '{}' is out of range", Word(begin)));
    }
    if (scaled % divisor != 0) {
      throw ExpressionError(fmt::format("'{}' is not a whole number{}", Word(begin),
                                        options_.allow_time_units ? " of nanoseconds" : ""));
    }
    return scaled / divisor;
  }

  ExpressionError BadNumber(std::size_t begin) {
    return ExpressionError(fmt::format("bad number '{}'", Word(begin)));
  }

  // The literal starting at `begin`, extended over trailing letters/digits, for messages.
  std::string Word(std::size_t begin) {
    std::size_t end = begin;
    while (end < text_.size() &&
           (IsAlpha(text_[end]) || IsDigit(text_[end]) || text_[end] == '.')) {
      ++end;
    }
    return std::string(text_.substr(begin, end - begin));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t'))
      ++pos_;
  }

  bool Accept(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void Push(Op op, int64_t operand) {
    code_.push_back({op, operand});
    if (++depth_ > kMaxStackDepth) {
      throw ExpressionError(fmt::format("'{}' is nested too deeply", text_));
    }
  }

  void Emit(Op op) {
    code_.push_back({op, 0});
    if (op != Op::kNegate) --depth_;  // binary operators pop two and push one
  }

  std::string_view text_;
  Options options_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::vector<Instruction> code_;
};

IntExpression IntExpression::Parse(std::string_view text, Options options) {
  IntExpression expression;
  expression.code_ = Parser(text, options).Run();
  bool uses_variables = false;
  for (const Instruction& instruction : expression.code_) {
    uses_variables = uses_variables || instruction.op == Op::kVariable;
  }
  if (!uses_variables) {
    // Folding reports arithmetic errors in constants (1/0) at parse time, with the line.
    const int64_t value = expression.Evaluate({});
    expression.code_ = {{Op::kConstant, value}};
  }
  return expression;
}

int64_t IntExpression::Evaluate(std::span<const int64_t> variables) const {
  // Most values in a description are a constant or a bare index: skip the interpreter.
  if (code_.size() == 1) {
    return code_[0].op == Op::kConstant ? code_[0].operand
                                        : variables[static_cast<std::size_t>(code_[0].operand)];
  }
  std::array<int64_t, kMaxStackDepth> stack;  // Parse() guarantees the depth and no underflow
  std::size_t top = 0;                        // number of values on the stack
  for (const Instruction& instruction : code_) {
    switch (instruction.op) {
      case Op::kConstant:
        stack[top++] = instruction.operand;
        break;
      case Op::kVariable:
        stack[top++] = variables[static_cast<std::size_t>(instruction.operand)];
        break;
      case Op::kNegate:
        stack[top - 1] = CheckedSub(0, stack[top - 1]);
        break;
      case Op::kAdd:
        --top;
        stack[top - 1] = CheckedAdd(stack[top - 1], stack[top]);
        break;
      case Op::kSub:
        --top;
        stack[top - 1] = CheckedSub(stack[top - 1], stack[top]);
        break;
      case Op::kMul:
        --top;
        stack[top - 1] = CheckedMul(stack[top - 1], stack[top]);
        break;
      case Op::kDiv:
        --top;
        stack[top - 1] = CheckedDiv(stack[top - 1], stack[top]);
        break;
      case Op::kMod:
        --top;
        stack[top - 1] = CheckedMod(stack[top - 1], stack[top]);
        break;
    }
  }
  return stack[0];
}

}  // namespace gpuroof::testsupport
