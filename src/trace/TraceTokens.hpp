#pragma once
// The lexical level of trace lines: fields separated by blanks, and the
// integers and numbers in them as SimGrid reads them.
#include <array>
#include <cstdint>
#include <string_view>

namespace perfcast {

/// Whether a character separates fields (space, tab, carriage return).
inline bool is_trace_blank(char c)
{
  static constexpr auto kBlank = [] {
    std::array<bool, 256> t{};
    t[' '] = t['\t'] = t['\r'] = true;
    return t;
  }();
  return kBlank[static_cast<unsigned char>(c)];
}

/// The blank-separated fields of a line, read one at a time without allocating.
class TraceFields {
public:
  explicit TraceFields(std::string_view line) : p_(line.data()), end_(line.data() + line.size()) {}

  /// The next field; false when none is left.
  bool next(std::string_view& field)
  {
    while (p_ < end_ && is_trace_blank(*p_))
      ++p_;
    if (p_ == end_)
      return false;
    const char* q = p_;
    while (q < end_ && !is_trace_blank(*q))
      ++q;
    field = std::string_view(p_, static_cast<std::size_t>(q - p_));
    p_ = q;
    return true;
  }
  /// The next field, and in `value` what its digits make up to the first other
  /// character; `digits` tells whether the field is 1 to 18 digits (so `value`
  /// is the whole field, exactly). One pass over the common numeric fields.
  bool next_number(std::string_view& field, long long& value, bool& digits)
  {
    while (p_ < end_ && is_trace_blank(*p_))
      ++p_;
    if (p_ == end_)
      return false;
    const char* q = p_;
    std::uint64_t x = 0; // wraps harmlessly beyond 19 digits, which are not `digits`
    for (unsigned d; q < end_ && (d = static_cast<unsigned>(*q - '0')) <= 9; ++q)
      x = x * 10 + d;
    digits = q > p_ && q - p_ <= 18 && (q == end_ || is_trace_blank(*q));
    while (q < end_ && !is_trace_blank(*q))
      ++q;
    field = std::string_view(p_, static_cast<std::size_t>(q - p_));
    value = static_cast<long long>(x);
    p_ = q;
    return true;
  }
  /// The rest of the line, from after the last field read.
  std::string_view rest() const { return std::string_view(p_, static_cast<std::size_t>(end_ - p_)); }
  /// How many fields are left.
  std::size_t count() const
  {
    TraceFields copy = *this;
    std::string_view field;
    std::size_t n = 0;
    while (copy.next(field))
      ++n;
    return n;
  }

private:
  const char* p_;
  const char* end_;
};

/// The common case of parse_trace_integer: a field of 1 to 18 digits (which cannot overflow).
inline bool parse_trace_digits(std::string_view field, long long& value)
{
  if (field.empty() || field.size() > 18)
    return false;
  long long x = 0;
  for (char c : field) {
    auto digit = static_cast<unsigned>(c - '0');
    if (digit > 9)
      return false;
    x = x * 10 + digit;
  }
  value = x;
  return true;
}

/// Reads a whole field as an integer; a decimal such as "64.0" is truncated, as
/// SimGrid does with counts. False when it is not a number or beyond +-9e18.
bool parse_trace_integer(std::string_view field, long long& value);

/// Reads a whole field as a finite floating-point number.
bool parse_trace_number(std::string_view field, double& value);

} // namespace perfcast
