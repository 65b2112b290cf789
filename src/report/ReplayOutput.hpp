#pragma once
// Presenting a replay: a table for people, JSON for programs, an SVG timeline.
#include "platform/Platform.hpp"
#include "report/TimelineSvg.hpp"
#include "sim/Replay.hpp"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace perfcast {

/// Which per-rank rows a table prints: every rank's, a summary over the ranks, or (Auto) rows up to kRowsByDefault ranks.
enum class RankRows { Auto, All, Summary };
/// Above this many ranks a table summarizes the ranks unless asked for every row.
inline constexpr std::size_t kRowsByDefault = 64;

/// One per-rank figure over the ranks: extremes (first rank reaching each) and mean.
struct ColumnSummary {
  std::string name; ///< as the table's column: finish_s, compute_s, comm_s, wait_s, sleep_s, msgs_out, ...
  double min = 0, mean = 0, max = 0;
  int min_rank = -1, max_rank = -1;
};
/// The per-rank figures summarized over the ranks, in the table's column order.
std::vector<ColumnSummary> summarize_ranks(const ReplayReport& report);

/// Human-readable summary and per-rank table (or a summary over the ranks), written as it goes.
void write_replay_table(std::ostream& out, const ReplayReport& report, const Platform& platform,
                        RankRows rows = RankRows::Auto);
/// The same table as a string.
std::string format_replay_table(const ReplayReport& report, const Platform& platform, RankRows rows = RankRows::Auto);
/// JSON object with makespan_s, network, actions and a ranks array.
nlohmann::json replay_to_json(const ReplayReport& report, const Platform& platform);
/// The text of replay_to_json(report, platform).dump(2), written rank by rank without building the document;
/// without per_rank, a `rank_summary` object (per figure: min, min_rank, mean, max, max_rank) replaces `ranks`.
void write_replay_json(std::ostream& out, const ReplayReport& report, const Platform& platform, bool per_rank = true);
/// SVG timeline titled `title` with rows labelled by rank only; prefer
/// timeline_svg(report, TimelineLabels{trace, platform, rank_host_names(report, platform)}).
std::string timeline_svg(const ReplayReport& report, const std::string& title);

} // namespace perfcast
