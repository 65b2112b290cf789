#pragma once
// The timeline picture: one row per rank (or group of ranks), time left to
// right, and in each time bin the share of the row's time spent computing,
// communicating, waiting for a partner and sleeping, stacked in that order
// from the bottom. Shares, not majorities: a state that takes 3% of a bin
// fills 3% of its column.
#include "platform/Platform.hpp"
#include "report/Timeline.hpp"
#include "sim/Replay.hpp"

#include <string>
#include <vector>

namespace perfcast {

/// What the picture names: the trace, the platform and the host of each rank.
struct TimelineLabels {
  std::string trace;              ///< trace index as the user gave it
  std::string platform;           ///< platform file as the user gave it
  std::vector<std::string> hosts; ///< host name per rank; empty to label rows by rank only
};

/// One drawn column of a row: the bin's time span and the share of each state in it.
struct TimelineColumn {
  double start_s;
  double end_s;
  KindSeconds share; ///< seconds in each state over (ranks in the row x column length)
};

/// The columns of `row` from time 0 to `makespan_s`, as the picture draws them.
std::vector<TimelineColumn> timeline_columns(const Timeline& timeline, std::size_t row, double makespan_s);

/// Host name of each rank of `report` on `platform`.
std::vector<std::string> rank_host_names(const ReplayReport& report, const Platform& platform);

/// The SVG timeline of a replay recorded with record_timeline.
std::string timeline_svg(const ReplayReport& report, const TimelineLabels& labels);

} // namespace perfcast
