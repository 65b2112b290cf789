#include "lb/SweepLevels.hpp"

#include "core/Error.hpp"
#include "trace/Aggregate.hpp"
#include "trace/RankGrouping.hpp"
#include "trace/TraceDirectory.hpp"

#include <charconv>
#include <fmt/format.h>
#include <set>
#include <sstream>

namespace perfcast::lb {

std::vector<int> parse_levels(const std::string& text, const std::string& what)
{
  std::vector<int> levels;
  std::set<int> seen;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int v = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v < 1)
      throw Error(fmt::format("{} '{}': '{}' is not a number of VPs (expected positive integers separated by commas)",
                              what, text, item));
    if (!seen.insert(v).second)
      throw Error(fmt::format("{} '{}': {} appears twice (expected each level once)", what, text, v));
    levels.push_back(v);
  }
  if (levels.empty())
    throw Error(fmt::format("{} '{}': expected at least one level, e.g. 64,32,16", what, text));
  return levels;
}

std::vector<SweepLevel> aggregated_levels(const std::string& fine_trace, const std::vector<int>& fine_grid,
                                          const std::vector<int>& levels, const std::string& scratch)
{
  std::string index = trace_index_for(fine_trace);
  TraceIndex fine = read_trace_index(index);
  std::vector<int> grid = fine_grid.empty() ? std::vector<int>{fine.ranks()} : fine_grid;
  long long grid_ranks = 1;
  for (int d : grid)
    grid_ranks *= d;
  if (grid_ranks != fine.ranks())
    throw Error(fmt::format("--grid: {} ranks, the trace {} has {} (expected a grid of its ranks)", grid_ranks,
                            fine_trace, fine.ranks()));
  std::vector<SweepLevel> out;
  for (int v : levels) {
    if (v == fine.ranks()) {
      out.push_back({fine_trace, fine});
      continue;
    }
    if (v > fine.ranks() || fine.ranks() % v != 0)
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
