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

#include <vector>

namespace perfcast {

/// Levenshtein distance between two words (insertions, deletions, substitutions, transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate a mistyped word most likely meant, or "" when none is close
/// (at most one edit in four letters, and at least one letter left the same).
std::string closest_name(std::string_view word, const std::vector<std::string>& candidates);

/// " (did you mean 'X'?)" when a candidate is close to the word, else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

} // namespace perfcast
