#include "trace/TraceTokens.hpp"

#include <charconv>
#include <cmath>

namespace perfcast {

bool parse_trace_integer(std::string_view s, long long& v)
{
  if (parse_trace_digits(s, v))
    return true;
  if (s.size() > 1 && s[0] == '-' && parse_trace_digits(s.substr(1), v)) {
    v = -v;
    return true;
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && p == s.data() + s.size())
    return true;
  // SimGrid parses counts as doubles and truncates them ("64.0" is 64)
  double d = 0;
  auto [p2, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec2 != std::errc() || p2 != s.data() + s.size() || !std::isfinite(d) || std::fabs(d) > 9e18)
    return false;
  v = static_cast<long long>(std::trunc(d));
  return true;
}

bool parse_trace_number(std::string_view s, double& v)
{
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(v);
}

} // namespace perfcast
