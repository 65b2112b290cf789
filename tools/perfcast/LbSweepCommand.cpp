// perfcast lb sweep: balancers x periods x VP levels x core counts, replayed
// in parallel, with the table, the best configuration and Figure 7's plots.
#include "Command.hpp"
#include "VpOverheadArgs.hpp"
#include "MpiShare.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "core/TempDirectory.hpp"
#include "lb/SweepLevels.hpp"
#include "lb/SweepReport.hpp"
#include "net/NetworkModel.hpp"
#include "platform/Platform.hpp"
#include "trace/TraceDirectory.hpp"
#include "trace/TraceIndex.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace perfcast::cli {

namespace {

struct LbSweepArgs {
  std::vector<std::string> traces;
  std::string platform;
  std::vector<int> cores;
  std::vector<std::string> balancers = {"greedy", "refine", "refine-classic"};
  std::vector<int> periods = {5, 10, 20, 40};
  std::vector<int> levels;
  std::string grid;
  std::string mapping = "block";
  std::string placement = "round-robin";
  std::string network = "smpi";
  unsigned threads = 0;
  VpOverheadArgs overheads;
  std::string plot_prefix;
  bool json = false;
  bool force = false;
  bool quiet = false;
};

/// The traces of the sweep: one per level as given, or the levels made from one fine trace.
std::vector<lb::SweepLevel> load_levels(const LbSweepArgs& a, const std::string& scratch)
{
  std::vector<lb::SweepLevel> levels;
  if (!a.levels.empty()) {
    if (a.traces.size() != 1)
      throw Error(fmt::format("--levels: expected one fine trace to aggregate, got {}", a.traces.size()));
    return lb::aggregated_levels(a.traces[0], a.grid, a.levels, scratch);
  }
  if (!a.grid.empty())
    throw Error("--grid: only used with --levels (the fine trace's ranks as a grid)");
  for (const std::string& t : a.traces)
    levels.push_back({t, read_trace_index(trace_index_for(t))});
  return levels;
}

/// Rank 0 gets every configuration's figures from the ranks that replayed them.
std::vector<lb::SweepResult> gather_results(const MpiShare& share, const std::vector<lb::SweepLevel>& levels,
                                            const lb::SweepOptions& options,
                                            const std::vector<lb::SweepResult>& mine)
{
  // five numbers per configuration; each rank fills its own slots and leaves
  // zeros elsewhere, so the sum on rank 0 is exact
  std::vector<lb::SweepConfig> configs = lb::sweep_configs(levels, options);
  std::vector<double> packed(configs.size() * 5, 0.0);
  for (std::size_t k = 0; k < mine.size(); ++k) {
    std::size_t i = static_cast<std::size_t>(share.rank) + k * static_cast<std::size_t>(share.size);
    const lb::SweepResult& r = mine[k];
    double row[5] = {r.makespan_s, static_cast<double>(r.steps), static_cast<double>(r.migrations),
                     static_cast<double>(r.bytes), r.balancing_s};
    std::copy(row, row + 5, packed.begin() + static_cast<std::ptrdiff_t>(5 * i));
  }
  sum_to_rank0(share, packed);
  std::vector<lb::SweepResult> results(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    lb::SweepResult& r = results[i];
    r.config = configs[i];
    r.vps = levels[configs[i].level].trace.ranks();
    r.makespan_s = packed[5 * i];
    r.steps = static_cast<std::size_t>(packed[5 * i + 1]);
    r.migrations = static_cast<std::size_t>(packed[5 * i + 2]);
    r.bytes = static_cast<std::uint64_t>(packed[5 * i + 3]);
    r.balancing_s = packed[5 * i + 4];
  }
  return results;
}

int run_lb_sweep(const LbSweepArgs& a, const MpiShare& share)
{
  bool known = false;
  for (const auto& [name, text] : network_model_names())
    known = known || name == a.network;
  if (!known)
    throw Error(fmt::format("--net: unknown network model '{}' (see perfcast list)", a.network));
  lb::SweepOptions options;
  options.balancers = a.balancers;
  options.periods = a.periods;
  options.core_counts = a.cores;
  options.mapping = a.mapping;
  options.placement = a.placement;
  options.replay.network = a.network;
  options.threads = a.threads;
  options.overheads = parse_vp_overheads(a.overheads);
  std::optional<OutputTarget> periods_svg, levels_svg;
  if (!a.plot_prefix.empty() && share.rank == 0) {
    periods_svg = check_output(a.plot_prefix + "-periods.svg", "plot", a.force);
    levels_svg = check_output(a.plot_prefix + "-levels.svg", "plot", a.force);
  }
  Platform platform = load_platform(a.platform);
  TempDirectory scratch("perfcast-sweep");
  std::vector<lb::SweepLevel> levels = load_levels(a, scratch.path());
  lb::check_sweep(levels, options);
  if (::isatty(STDERR_FILENO) && !a.quiet && share.rank == 0)
    options.progress = [](std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\rsweep: %zu of %zu configurations   ", done, total);
      if (done == total)
        std::fprintf(stderr, "\r%40s\r", "");
    };
  std::vector<lb::SweepResult> results = lb::run_sweep(levels, platform, options, share.rank, share.size);
  if (share.size > 1) {
    results = gather_results(share, levels, options, results);
    if (share.rank != 0)
      return 0;
  }
  lb::link_references(results);
  if (a.json)
    std::cout << lb::sweep_json(results).dump(2) << "\n";
  else
    std::cout << lb::format_sweep(results);
  if (periods_svg) {
    std::string subtitle = fmt::format("on {}", a.platform);
    write_output(*periods_svg, mark_svg(lb::sweep_periods_svg(results, subtitle)));
    write_output(*levels_svg, mark_svg(lb::sweep_levels_svg(results, subtitle)));
  }
  return 0;
}

/// Runs the sweep, as one of several MPI ranks when mpirun started perfcast.
int run_lb_sweep_shared(const LbSweepArgs& a)
{
  MpiShare share = start_mpi_share();
  int status = 0;
  try {
    status = run_lb_sweep(a, share);
  } catch (const std::exception& e) {
    if (share.size > 1) // the other ranks wait in a reduction: end the whole job
      abort_mpi_share(share, e.what());
    throw;
  }
  finish_mpi_share(share);
  return status;
}

} // namespace

void add_lb_sweep_command(CLI::App& lb, std::vector<Command>& out)
{
  auto a = std::make_shared<LbSweepArgs>();
  auto* sw = lb.add_subcommand("sweep", "replay every balancer x period x VP level x core count and find the best");
  sw->add_option("traces", a->traces,
                 "one trace per VP level (index file or perfcast trace directory), or the finest with --levels")
      ->required();
  sw->add_option("--levels", a->levels, "VP levels made by aggregating the one fine trace, e.g. 64,32,16,8,4")
      ->delimiter(',');
  sw->add_option("--grid", a->grid, "the fine trace's ranks as a row-major grid for --levels, e.g. 8x8 (default: 1-D)");
  sw->add_option("--platform,-p", a->platform, "platform file: perfcast JSON or SimGrid v4.1 XML")->required();
  sw->add_option("--cores", a->cores, "core counts, e.g. 4,8")->required()->delimiter(',');
  sw->add_option("--balancers", a->balancers, "balancer specs (see perfcast list)")
      ->delimiter(',')
      ->capture_default_str();
  sw->add_option("--periods", a->periods, "balancing periods in migration points")
      ->delimiter(',')
      ->capture_default_str();
  sw->add_option("--mapping", a->mapping, "initial VP mapping: block or round-robin")->capture_default_str();
  sw->add_option("--placement", a->placement, "how the cores are chosen: round-robin, block, or HOST,HOST:2,...")
      ->capture_default_str();
  sw->add_option("--net", a->network, "network model: smpi or loggp")->capture_default_str();
  add_vp_overhead_options(*sw, a->overheads);
  sw->add_option("--threads", a->threads, "configurations replayed at once (0: one per hardware thread)")
      ->capture_default_str();
  sw->add_option("--plot-prefix", a->plot_prefix, "write PREFIX-periods.svg and PREFIX-levels.svg (Figure 7)");
  sw->add_flag("--force", a->force, "replace output files that perfcast did not write");
  sw->add_flag("--json", a->json, "print a JSON object instead of a table");
  sw->add_flag("--quiet,-q", a->quiet, "no progress display");
  out.push_back({sw, [a] { return run_lb_sweep_shared(*a); }});
}

} // namespace perfcast::cli
