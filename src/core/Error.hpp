#pragma once
// User-facing errors. A user error (bad trace, platform, flag) is thrown as
// perfcast::Error and caught once in main(), which prints it and exits non-zero.
// Messages follow LLVM style: location first, lower-case, no final period.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace perfcast {

/// An error in what the user gave us; the message already names file and line.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// Throws an Error located at file:line.
[[noreturn]] void fail_at(const std::string& file, std::size_t line, const std::string& what);

/// Throws an Error located at a file (no line).
[[noreturn]] void fail_in(const std::string& file, const std::string& what);

} // namespace perfcast
