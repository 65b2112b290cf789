// perfcast lb sweep: balancers x periods x VP levels x core counts, replayed
// in parallel, with the table, the best configuration and Figure 7's plots.
#include "Command.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "lb/SweepReport.hpp"
#include "net/NetworkModel.hpp"
#include "platform/Platform.hpp"
#include "trace/TraceDirectory.hpp"
#include "trace/TraceIndex.hpp"

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
  std::string mapping = "block";
  std::string placement = "round-robin";
  std::string network = "smpi";
  unsigned threads = 0;
  std::string plot_prefix;
  bool json = false;
  bool force = false;
  bool quiet = false;
};

int run_lb_sweep(const LbSweepArgs& a)
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
  std::optional<OutputTarget> periods_svg, levels_svg;
  if (!a.plot_prefix.empty()) {
    periods_svg = check_output(a.plot_prefix + "-periods.svg", "plot", a.force);
    levels_svg = check_output(a.plot_prefix + "-levels.svg", "plot", a.force);
  }
  Platform platform = load_platform(a.platform);
  std::vector<lb::SweepLevel> levels;
  for (const std::string& t : a.traces)
    levels.push_back({t, read_trace_index(trace_index_for(t))});
  lb::check_sweep(levels, options);
  if (::isatty(STDERR_FILENO) && !a.quiet)
    options.progress = [](std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\rsweep: %zu of %zu configurations   ", done, total);
      if (done == total)
        std::fprintf(stderr, "\r%40s\r", "");
    };
  std::vector<lb::SweepResult> results = lb::run_sweep(levels, platform, options);
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

} // namespace

void add_lb_sweep_command(CLI::App& lb, std::vector<Command>& out)
{
  auto a = std::make_shared<LbSweepArgs>();
  auto* sw = lb.add_subcommand("sweep", "replay every balancer x period x VP level x core count and find the best");
  sw->add_option("traces", a->traces, "one trace per VP level (index file or perfcast trace directory)")->required();
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
  sw->add_option("--threads", a->threads, "configurations replayed at once (0: one per hardware thread)")
      ->capture_default_str();
  sw->add_option("--plot-prefix", a->plot_prefix, "write PREFIX-periods.svg and PREFIX-levels.svg (Figure 7)");
  sw->add_flag("--force", a->force, "replace output files that perfcast did not write");
  sw->add_flag("--json", a->json, "print a JSON object instead of a table");
  sw->add_flag("--quiet,-q", a->quiet, "no progress display");
  out.push_back({sw, [a] { return run_lb_sweep(*a); }});
}

} // namespace perfcast::cli
