#pragma once
// Presenting a replay: a table for people, JSON for programs, an SVG timeline.
#include "platform/Platform.hpp"
#include "report/TimelineSvg.hpp"
#include "sim/Replay.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace perfcast {

/// Human-readable summary and per-rank table.
std::string format_replay_table(const ReplayReport& report, const Platform& platform);
/// JSON object with makespan_s, network, actions and a ranks array.
nlohmann::json replay_to_json(const ReplayReport& report, const Platform& platform);
/// SVG timeline titled `title` with rows labelled by rank only; prefer
/// timeline_svg(report, TimelineLabels{trace, platform, rank_host_names(report, platform)}).
std::string timeline_svg(const ReplayReport& report, const std::string& title);

} // namespace perfcast
