#pragma once
// Small text helpers shared by the readers of user files.
#include <string>
#include <string_view>

namespace perfcast {

/// The text without leading and trailing blanks (spaces, tabs, carriage returns).
std::string_view trim(std::string_view text);

/// A whole file; an Error naming the file when it cannot be opened ("cannot open WHAT").
std::string read_file(const std::string& path, std::string_view what);

} // namespace perfcast
