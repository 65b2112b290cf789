#pragma once
// Quantities with units as SimGrid's platform files write them: "1Gf", "125MBps",
// "1Gbps", "50us". Values are returned in SI base units (flop/s, bytes/s, seconds).
#include <optional>
#include <string_view>

namespace perfcast {

/// Parses a computing speed ("1Gf", "2.5e9f", "100Mf"; bare numbers are flop/s).
std::optional<double> parse_speed(std::string_view text);
/// Parses a bandwidth ("125MBps", "1Gbps", "10GiBps"; bare numbers are bytes/s).
std::optional<double> parse_bandwidth(std::string_view text);
/// Parses a duration ("50us", "0.1ms", "1e-5s", "2h"; bare numbers are seconds).
std::optional<double> parse_duration(std::string_view text);
/// Parses a plain floating-point number, the whole text.
std::optional<double> parse_number(std::string_view text);
/// "8GiB", "512MB", "4096" (bytes); nullopt when malformed.
std::optional<double> parse_bytes(std::string_view text);

} // namespace perfcast
