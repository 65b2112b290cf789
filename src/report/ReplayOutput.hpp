#pragma once
// Presenting a replay: a table for people, JSON for programs, an SVG timeline.
#include "platform/Platform.hpp"
#include "sim/Replay.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace perfcast {

/// Human-readable summary and per-rank table.
std::string format_replay_table(const ReplayReport& report, const Platform& platform);
/// JSON object with makespan_s, network, actions and a ranks array.
nlohmann::json replay_to_json(const ReplayReport& report, const Platform& platform);
/// SVG timeline: one row per rank, time left to right, coloured by activity.
std::string timeline_svg(const ReplayReport& report, const std::string& title);

} // namespace perfcast
