#include "lb/SweepLevels.hpp"

#include "core/Error.hpp"
#include "trace/Aggregate.hpp"
#include "trace/RankGrouping.hpp"
#include "trace/TraceDirectory.hpp"

#include <fmt/format.h>
#include <set>

namespace perfcast::lb {

std::vector<SweepLevel> aggregated_levels(const std::string& fine_trace, const std::string& fine_grid,
                                          const std::vector<int>& levels, const std::string& scratch)
{
  std::string index = trace_index_for(fine_trace);
  TraceIndex fine = read_trace_index(index);
  std::vector<int> grid = trace_grid(fine_grid, "--grid", fine.ranks(), fine_trace);
  if (levels.empty())
    throw Error("--levels: expected at least one level, e.g. 64,32,16");
  std::vector<SweepLevel> out;
  std::set<int> seen;
  for (int v : levels) {
    if (!seen.insert(v).second)
      throw Error(fmt::format("--levels {}: given twice (expected each level once)", v));
    if (v == fine.ranks()) {
      out.push_back({fine_trace, fine});
      continue;
    }
    if (v < 1 || v > fine.ranks() || fine.ranks() % v != 0)
      throw Error(fmt::format("--levels {}: the trace {} has {} ranks (expected levels that divide it; a trace "
                              "can be aggregated to fewer VPs, not split into more)",
                              v, fine_trace, fine.ranks()));
    RankGrouping grouping = block_grouping(grid, coarse_grid_for(grid, v));
    std::string dir = fmt::format("{}/level-{}", scratch, v);
    aggregate_trace_to(index, grouping, dir, false);
    out.push_back({fmt::format("{} aggregated to {}", fine_trace, v), read_trace_index(dir + "/trace.txt")});
  }
  return out;
}

} // namespace perfcast::lb
