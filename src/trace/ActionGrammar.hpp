#pragma once
// The grammar of one trace line, "RANK ACTION ARGS...": one table says which
// arguments each action takes, and one parser reads every line with it and
// writes the error messages. Values are checked against the limits below, so
// no product or sum of trace values can wrap.
#include "trace/Action.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace perfcast {

/// Largest world size of a trace: ranks are 0..kMaxRanks-1.
inline constexpr int kMaxRanks = 1 << 20;
/// Largest byte count of one message, and of one v-collective's counts together
/// (2^43 bytes, 8 TiB: times kMaxRanks it still fits in 64 bits).
inline constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 43;
/// Largest flop count or sleep duration of one action (sums over any trace stay finite).
inline constexpr double kMaxActionValue = 1e30;

/// Parses one trace line into an action. Returns false for blank and comment
/// lines; returns true with `error` set (no location) when the line is malformed.
/// `default_datatype` is the datatype id of counts without one; "init" sets it.
bool parse_trace_line(std::string_view line, int world_size, int& default_datatype, Action& out, std::string& error);

/// The quick path of parse_trace_line: lines whose arguments are plain digits,
/// read with the same grammar; false (`out` partly written) for any other line.
bool parse_trace_line_quick(std::string_view line, int world_size, int default_datatype, Action& out);
/// parse_trace_line without its quick path (the two agree wherever the quick path reads a line).
bool parse_trace_line_full(std::string_view line, int world_size, int& default_datatype, Action& out,
                           std::string& error);

/// The first field of a line as a rank: the rank, -1 for a blank or comment
/// line, or -2 when the field is not a non-negative integer below kMaxRanks.
long long line_rank(std::string_view line);

/// What an action's arguments are, for messages and documentation ("count [root [datatype]]").
std::string action_usage(ActionType type);

} // namespace perfcast
