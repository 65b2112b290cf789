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

/// CLI11's message for any other parse error, as "perfcast SUB: message; 'perfcast SUB --help' lists ...",
/// SUB being the deepest subcommand argv names.
std::string explain_parse_error(const CLI::App& app, int argc, const char* const* argv, const std::string& message);

} // namespace perfcast::cli
