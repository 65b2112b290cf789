// perfcast aggregate: a V-rank trace as the trace of V' ranks, each doing the
// work of a block of ranks (trace/Aggregate.hpp).
#include "Command.hpp"

#include "core/Error.hpp"
#include "trace/Aggregate.hpp"
#include "trace/TraceDirectory.hpp"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace perfcast::cli {

namespace {

struct AggregateArgs {
  std::string trace;
  std::string out;
  int ranks = 0;
  std::string grid;
  std::string coarse_grid;
  std::string map;
  bool force = false;
  bool json = false;
};

RankGrouping grouping_for(const AggregateArgs& a, int fine_ranks)
{
  if (!a.map.empty()) {
    if (!a.grid.empty() || !a.coarse_grid.empty())
      throw Error("--map: expected either --map or --grid/--coarse-grid, not both");
    RankGrouping g = read_grouping_map(a.map, fine_ranks);
    if (a.ranks > 0 && a.ranks != g.coarse_ranks)
      throw Error(fmt::format("--ranks {}: the mapping file {} has {} coarse ranks (expected the same)", a.ranks, a.map,
                              g.coarse_ranks));
    return g;
  }
  std::vector<int> fine = trace_grid(a.grid, "--grid", fine_ranks, a.trace);
  std::vector<int> coarse;
  if (!a.coarse_grid.empty()) {
    coarse = parse_grid(a.coarse_grid, "--coarse-grid");
    long long n = 1;
    for (int d : coarse)
      n *= d;
    if (a.ranks > 0 && n != a.ranks)
      throw Error(fmt::format("--coarse-grid {}: {} ranks, --ranks says {} (expected the same)", a.coarse_grid, n,
                              a.ranks));
  } else {
    if (a.ranks <= 0)
      throw Error("--ranks: expected the number of ranks of the aggregated trace (or --coarse-grid or --map)");
    if (fine_ranks % a.ranks != 0)
      throw Error(fmt::format("--ranks {}: expected a divisor of the trace's {} ranks", a.ranks, fine_ranks));
    coarse = coarse_grid_for(fine, a.ranks);
  }
  return block_grouping(fine, coarse);
}

int run_aggregate(const AggregateArgs& a)
{
  std::string index = trace_index_for(a.trace);
  TraceIndex fine = read_trace_index(index);
  RankGrouping g = grouping_for(a, fine.ranks());
  AggregateSummary s = aggregate_trace_to(index, g, a.out, a.force);
  if (a.json) {
    nlohmann::json j = {{"fine_ranks", s.fine_ranks},           {"coarse_ranks", s.coarse_ranks},
                        {"iterations", s.iterations},           {"messages_in", s.messages_in},
                        {"messages_inside_groups", s.messages_inside}, {"messages_out", s.messages_out},
                        {"group_of", g.group_of},               {"output", a.out + "/trace.txt"}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("aggregated {} ranks into {} ({} iterations): {} messages, {} inside groups (gone), {} "
                             "merged messages written; trace {}/trace.txt\n",
                             s.fine_ranks, s.coarse_ranks, s.iterations, s.messages_in, s.messages_inside,
                             s.messages_out, a.out);
  }
  return 0;
}

} // namespace

void add_aggregate_commands(CLI::App& app, std::vector<Command>& out)
{
  auto a = std::make_shared<AggregateArgs>();
  auto* ag = app.add_subcommand("aggregate", "turn a V-rank trace into a V'-rank one (blocks of ranks merged; "
                                             "iterations delimited by migrate lines)");
  ag->add_option("trace", a->trace, "trace index or directory written by perfcast trace")->required();
  ag->add_option("-o,--output", a->out, "trace directory to write (one perfcast wrote is replaced)")->required();
  ag->add_option("--ranks", a->ranks, "ranks of the aggregated trace (a divisor of the trace's)");
  ag->add_option("--grid", a->grid, "the trace's ranks as a row-major grid, e.g. 8x8 or 4x4x4 (default: 1-D)");
  ag->add_option("--coarse-grid", a->coarse_grid,
                 "the aggregated grid, e.g. 4x4 (default: the blocks closest to squares or cubes for --ranks)");
  ag->add_option("--map", a->map, "mapping file, one 'FINE_RANK COARSE_RANK' per line, instead of a grid");
  ag->add_flag("--force", a->force, "write into a directory that holds other files (only perfcast's are replaced)");
  ag->add_flag("--json", a->json, "print a JSON summary");
  out.push_back({ag, [a] { return run_aggregate(*a); }});
}

} // namespace perfcast::cli
