#include "core/Units.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace perfcast {

namespace {

struct Suffix {
  std::string_view text;
  double scale;
};

// Splits "125MBps" into 125 and "MBps"; the number part must be non-empty.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text)
{
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data() || !std::isfinite(value))
    return std::nullopt;
  return std::make_pair(value, text.substr(static_cast<std::size_t>(ptr - text.data())));
}

std::optional<double> parse_with(std::string_view text, std::initializer_list<Suffix> suffixes)
{
  auto split = split_number(text);
  if (!split)
    return std::nullopt;
  auto [value, unit] = *split;
  if (unit.empty())
    return value;
  for (const Suffix& s : suffixes)
    if (unit == s.text)
      return value * s.scale;
  return std::nullopt;
}

constexpr double kKi = 1024.0, kMi = kKi * 1024, kGi = kMi * 1024, kTi = kGi * 1024;

} // namespace

std::optional<double> parse_number(std::string_view text)
{
  auto split = split_number(text);
  if (!split || !split->second.empty())
    return std::nullopt;
  return split->first;
}

std::optional<double> parse_speed(std::string_view text)
{
  return parse_with(text, {{"f", 1}, {"kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}, {"Pf", 1e15},
                           {"Ef", 1e18}, {"Zf", 1e21}, {"flops", 1}, {"kflops", 1e3}, {"Mflops", 1e6},
                           {"Gflops", 1e9}, {"Tflops", 1e12}});
}

std::optional<double> parse_bandwidth(std::string_view text)
{
  return parse_with(text, {{"Bps", 1},        {"kBps", 1e3},      {"KBps", 1e3},      {"MBps", 1e6},
                           {"GBps", 1e9},     {"TBps", 1e12},     {"KiBps", kKi},     {"MiBps", kMi},
                           {"GiBps", kGi},    {"TiBps", kTi},     {"bps", 0.125},     {"kbps", 125.0},
                           {"Kbps", 125.0},   {"Mbps", 1.25e5},   {"Gbps", 1.25e8},   {"Tbps", 1.25e11},
                           {"Kibps", kKi / 8}, {"Mibps", kMi / 8}, {"Gibps", kGi / 8}, {"Tibps", kTi / 8}});
}

std::optional<double> parse_duration(std::string_view text)
{
  return parse_with(text, {{"s", 1},
                           {"ms", 1e-3},
                           {"us", 1e-6},
                           {"ns", 1e-9},
                           {"ps", 1e-12},
                           {"m", 60},
                           {"h", 3600},
                           {"d", 86400},
                           {"w", 604800}});
}

std::optional<double> parse_bytes(std::string_view text)
{
  return parse_with(text, {{"B", 1},     {"kB", 1e3},   {"KB", 1e3},   {"MB", 1e6},   {"GB", 1e9},
                           {"TB", 1e12}, {"KiB", kKi}, {"MiB", kMi}, {"GiB", kGi}, {"TiB", kTi}});
}

} // namespace perfcast
