#pragma once
// The action keywords of trace lines ("send", "ibcast", ...), found without allocating.
#include "trace/Action.hpp"

#include <string>
#include <string_view>

namespace perfcast {

/// What a keyword names: an action type, and whether it is the non-blocking "i" form.
struct Keyword {
  ActionType type;
  bool nonblocking;
};

/// The keyword's meaning, or null when it names no action.
const Keyword* find_keyword(std::string_view word);

/// Every keyword, for error messages.
std::string expected_keywords();

} // namespace perfcast
