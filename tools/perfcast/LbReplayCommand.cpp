// perfcast lb replay: an over-decomposed replay with a load balancer, against
// the same replay without balancing.
#include "Command.hpp"
#include "VpOverheadArgs.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "core/Units.hpp"
#include "lb/BalancerFunction.hpp"
#include "net/NetworkModel.hpp"
#include "platform/Placement.hpp"
#include "report/LoadHeatmapSvg.hpp"
#include "report/PlotSvg.hpp"
#include "report/VpOutput.hpp"
#include "sim/OverDecomposed.hpp"
#include "trace/TraceDirectory.hpp"
#include "trace/TraceIndex.hpp"

#include <fmt/format.h>
#include <iostream>
#include <optional>

namespace perfcast::cli {

namespace {

struct LbReplayArgs {
  std::string trace;
  std::string platform;
  int cores = 0;
  std::string hostfile;
  std::string placement = "round-robin";
  std::string balancer = "greedy";
  int period = 1;
  std::string mapping = "block";
  std::string network = "smpi";
  std::string heatmap;
  std::string load_curve;
  VpOverheadArgs overheads;
  bool use_pe_speed = false;
  bool json = false;
  bool force = false;
};

int run_lb_replay(const LbReplayArgs& a)
{
  VpOptions options;
  try {
    options.balancer = lb::balancer_function(lb::parse_balancer_spec(a.balancer));
  } catch (const Error& e) {
    throw Error(fmt::format("--balancer: {}", e.what()));
  }
  if (a.period < 0)
    throw Error(fmt::format("--period {}: expected a number of migration points, 0 or more", a.period));
  if (a.cores < 1)
    throw Error(fmt::format("--cores {}: expected at least 1", a.cores));
  bool known = false;
  for (const auto& [name, text] : network_model_names())
    known = known || name == a.network;
  if (!known)
    throw Error(fmt::format("--net: unknown network model '{}' (see perfcast list)", a.network));
  options.replay.network = a.network;
  options.period = a.period;
  options.use_pe_speed = a.use_pe_speed;
  options.overheads = parse_vp_overheads(a.overheads);
  std::optional<OutputTarget> heatmap, curve;
  if (!a.heatmap.empty())
    heatmap = check_output(a.heatmap, "heatmap", a.force);
  if (!a.load_curve.empty())
    curve = check_output(a.load_curve, "load curve", a.force);
  options.record_core_timeline = curve.has_value();

  Platform platform = load_platform(a.platform);
  TraceIndex trace = read_trace_index(trace_index_for(a.trace));
  Placement cores = a.hostfile.empty() ? place_by_policy(platform, a.placement, a.cores)
                                       : place_by_hostfile(platform, a.hostfile, a.cores);
  options.core_of_vp = make_mapping(a.mapping, trace.ranks(), a.cores);
  VpReport balanced = replay_over_decomposed(trace, platform, cores, options);
  VpOptions plain = options;
  plain.period = 0;
  VpReport unbalanced = replay_over_decomposed(trace, platform, cores, plain);

  VpRunLabels labels{a.trace, a.balancer, a.period, a.mapping};
  if (a.json)
    std::cout << vp_comparison_json(balanced, unbalanced, platform, labels).dump(2) << "\n";
  else
    std::cout << format_vp_comparison(balanced, unbalanced, platform, labels);
  std::string subtitle = fmt::format("{} on {}: {} VPs, {} cores", a.trace, a.platform, trace.ranks(), a.cores);
  if (heatmap) {
    // the paper's Figure 6a: without balancing, then with
    std::vector<HeatmapPanel> panels = {{"no balancing", unbalanced.iteration_loads},
                                        {fmt::format("{} every {} migration points", a.balancer, a.period),
                                         balanced.iteration_loads}};
    std::string svg = load_heatmap_svg(panels, {"Compute per core and iteration", subtitle});
    write_output(*heatmap, mark_svg(svg));
  }
  if (curve) {
    PlotSeries with{fmt::format("{} every {}", a.balancer, a.period), "#c0392b", average_load_curve(balanced)};
    PlotSeries without{"no balancing", "#2c3e50", average_load_curve(unbalanced)};
    LineChart chart;
    chart.title = "Average load of the cores over time";
    chart.subtitle = subtitle;
    chart.x_label = "simulated time (s)";
    chart.y_label = "share of cores computing";
    write_output(*curve, mark_svg(line_chart_svg(chart, {without, with})));
  }
  return 0;
}

} // namespace

void add_lb_replay_command(CLI::App& lb, std::vector<Command>& out)
{
  auto a = std::make_shared<LbReplayArgs>();
  auto* rp = lb.add_subcommand("replay", "replay a trace's ranks as VPs on fewer cores, with and without a balancer");
  rp->add_option("trace", a->trace, "trace index file or perfcast trace directory (ranks become VPs)")->required();
  rp->add_option("--platform,-p", a->platform, "platform file: perfcast JSON or SimGrid v4.1 XML")->required();
  rp->add_option("--cores", a->cores, "number of cores P the VPs run on (P <= VPs)")->required();
  rp->add_option("--placement", a->placement, "how the cores are chosen: round-robin, block, or HOST,HOST:2,...")
      ->capture_default_str();
  rp->add_option("--hostfile", a->hostfile, "SimGrid-style hostfile choosing the cores' hosts");
  rp->add_option("--balancer,-b", a->balancer, "NAME or NAME:key=value,... (see perfcast list)")
      ->capture_default_str();
  rp->add_option("--period", a->period, "balance at every K-th migration point (0: never)")->capture_default_str();
  rp->add_option("--mapping", a->mapping, "initial VP mapping: block, round-robin or a file (core of VP v on line v)")
      ->capture_default_str();
  rp->add_option("--net", a->network, "network model: smpi or loggp")->capture_default_str();
  rp->add_flag("--use-pe-speed", a->use_pe_speed, "let the balancer scale loads by core speed (+LBTestPESpeed)");
  add_vp_overhead_options(*rp, a->overheads);
  rp->add_option("--heatmap", a->heatmap, "write the per-core load per iteration as an SVG heatmap");
  rp->add_option("--load-curve", a->load_curve, "write the average core load over time as an SVG curve");
  rp->add_flag("--force", a->force, "replace output files that perfcast did not write");
  rp->add_flag("--json", a->json, "print a JSON object instead of a table");
  out.push_back({rp, [a] { return run_lb_replay(*a); }});
}

} // namespace perfcast::cli
