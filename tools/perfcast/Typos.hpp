#pragma once
// What a mistyped command line most likely meant, for the message CLI11's
// own ("A subcommand is required", "The following arguments were not
// expected") would leave without a hint.
#include <CLI/CLI.hpp>
#include <string>

namespace perfcast::cli {

/// The first word of argv that names no subcommand or option where one is
/// expected, as an error message with a suggestion; "" when every word is known.
std::string explain_unknown_word(const CLI::App& app, int argc, const char* const* argv);

} // namespace perfcast::cli
