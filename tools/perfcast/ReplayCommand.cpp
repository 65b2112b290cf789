// perfcast replay and perfcast list.
#include "Command.hpp"

#include "core/Distribution.hpp"
#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "core/Units.hpp"
#include "net/NetworkModel.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "lb/BalancerSpec.hpp"
#include "report/ReplayOutput.hpp"
#include "report/TimelineSvg.hpp"
#include "sched/ProcessSim.hpp"
#include "sim/Collectives.hpp"
#include "sim/Replay.hpp"
#include "trace/TraceDirectory.hpp"
#include "trace/TraceReader.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace perfcast::cli {
namespace {

struct ReplayArgs {
  std::string index;
  std::string platform;
  std::string hostfile;
  std::string placement = "round-robin";
  std::string network = "smpi";
  std::string timeline;
  std::vector<std::string> collectives;
  std::vector<std::string> loggp;
  double eager_threshold = 65536;
  bool json = false;
  bool per_rank = false;
  bool summary = false;
  bool no_crosstraffic = false;
  bool no_solution_cache = false;
  bool quiet = false;
  bool force = false;
};

double loggp_value(const std::string& key, const std::string& text)
{
  auto v = key == "G" ? parse_number(text) : parse_duration(text);
  if (!v || !std::isfinite(*v) || *v < 0)
    throw Error(fmt::format("--loggp {}={}: expected a non-negative {}", key, text,
                            key == "G" ? "number of seconds per byte" : "duration such as 5us"));
  return *v;
}

/// The replay options the flags ask for; every flag is checked here, before
/// any input is read, so a mistake costs no replay.
ReplayOptions options_from_args(const ReplayArgs& a)
{
  ReplayOptions options;
  check_network_model_name(a.network);
  options.network = a.network;
  if (!std::isfinite(a.eager_threshold) || a.eager_threshold < 0)
    throw Error(fmt::format("--eager-threshold {}: expected a non-negative number of bytes", a.eager_threshold));
  options.eager_threshold_bytes = a.eager_threshold;
  options.network_options.crosstraffic = !a.no_crosstraffic;
  options.network_options.solution_cache = !a.no_solution_cache;
  options.record_timeline = !a.timeline.empty();
  for (const std::string& spec : a.collectives) {
    try {
      options.collectives.set(spec);
    } catch (const Error& e) {
      throw Error(fmt::format("--coll {} (see perfcast list)", e.what()));
    }
  }
  for (const std::string& kv : a.loggp) {
    auto eq = kv.find('=');
    std::string key = kv.substr(0, eq);
    if (eq == std::string::npos || (key != "L" && key != "o" && key != "G"))
      throw Error(fmt::format("--loggp '{}': expected L=DURATION, o=DURATION or G=SECONDS_PER_BYTE", kv));
    double v = loggp_value(key, kv.substr(eq + 1));
    if (key == "L")
      options.network_options.loggp.latency_s = v;
    else if (key == "o")
      options.network_options.loggp.overhead_s = v;
    else
      options.network_options.loggp.gap_per_byte_s = v;
  }
  return options;
}

int run_replay(const ReplayArgs& a)
{
  if (a.per_rank && a.summary)
    throw Error("--per-rank and --summary: expected at most one of them");
  if (a.per_rank && a.json)
    throw Error("--per-rank: --json always lists every rank (--summary replaces the list by a summary)");
  ReplayOptions options = options_from_args(a);
  std::optional<OutputTarget> timeline;
  if (!a.timeline.empty())
    timeline = check_output(a.timeline, "timeline", a.force);
  Platform platform = load_platform(a.platform);
  TraceIndex trace = read_trace_index(trace_index_for(a.index));
  Placement placement = a.hostfile.empty() ? place_by_policy(platform, a.placement, trace.ranks())
                                           : place_by_hostfile(platform, a.hostfile, trace.ranks());
  bool tty = ::isatty(STDERR_FILENO) && !a.quiet;
  auto started = std::chrono::steady_clock::now();
  if (tty)
    options.progress = [&](std::uint64_t actions, double simulated) {
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "\rreplaying: %llu actions, simulated %.6f s, %.1f s elapsed   ",
                   static_cast<unsigned long long>(actions), simulated, secs);
    };
  ReplayReport report = replay_trace(trace, platform, placement, options);
  if (tty && report.actions >= (1u << 20))
    std::fprintf(stderr, "\r%80s\r", "");
  // written as they are formatted: at a million ranks the JSON is over a gigabyte
  if (a.json) {
    write_replay_json(std::cout, report, platform, !a.summary);
    std::cout << "\n";
  } else {
    write_replay_table(std::cout, report, platform,
                       a.per_rank ? RankRows::All : a.summary ? RankRows::Summary : RankRows::Auto);
  }
  std::cout.flush();
  if (timeline) {
    write_output(*timeline, mark_svg(timeline_svg(
                                report, TimelineLabels{a.index, a.platform, rank_host_names(report, platform)})));
    if (!a.json && timeline->mode != OutputMode::Stdout)
      std::cout << "\ntimeline written to " << a.timeline << "\n";
  }
  // The process ends next: left to the exit, a million ranks' report (ten million map nodes) is not freed
  // node by node, which takes seconds (clang's -disable-free does the same).
  static_cast<void>(new ReplayReport(std::move(report)));
  return 0;
}

int run_list()
{
  std::cout << "network models (--net):\n";
  for (const auto& [name, text] : network_model_names())
    std::cout << fmt::format("  {:<8} {}\n", name, text);
  std::cout << "\ncollective algorithms (--coll NAME=ALGORITHM; 'default' follows SimGrid 3.32):\n";
  for (const auto& [name, algs] : collective_algorithms()) {
    std::string list;
    for (const auto& x : algs)
      list += (list.empty() ? "" : ", ") + x;
    std::cout << fmt::format("  {:<10} {}\n", name, list);
  }
  std::cout << "\nplacement policies (--placement): round-robin, block, or HOST,HOST,... (HOST:COUNT repeats)\n";
  std::cout << "\nload balancers (perfcast lb decide --balancer NAME[:key=value,...]):\n";
  for (const auto& row : lb::balancer_rows()) {
    std::string line;
    for (const auto& cell : row)
      line += (line.empty() ? "  " : "  ") + cell;
    std::cout << line << "\n";
  }
  std::cout << "\nscheduling policies (perfcast schedule --policy NAME[:key=value,...]):\n";
  for (const auto& row : sched::describe_policies())
    std::cout << "  " << row << "\n";
  std::cout << "\ndistributions (workload generators, NAME:key=value,...):\n";
  for (const auto& row : describe_distributions())
    std::cout << "  " << row << "\n";
  return 0;
}

} // namespace

void add_replay_commands(CLI::App& app, std::vector<Command>& out)
{
  auto replay = std::make_shared<ReplayArgs>();
  auto* rp = app.add_subcommand("replay", "replay a time-independent MPI trace on a platform");
  rp->add_option("index", replay->index, "trace index file (one trace file per rank, or one shared file), or a perfcast trace directory")->required();
  rp->add_option("--platform,-p", replay->platform, "platform file: perfcast JSON or SimGrid v4.1 XML")->required();
  rp->add_option("--hostfile", replay->hostfile, "SimGrid-style hostfile: rank i on line i modulo its length");
  rp->add_option("--placement", replay->placement, "round-robin, block, or a list HOST,HOST:2,...")
      ->capture_default_str();
  rp->add_option("--net", replay->network, "network model: smpi or loggp")->capture_default_str();
  rp->add_option("--loggp", replay->loggp, "LogGP parameters: L=5us o=1us G=8e-9 (defaults from the platform)");
  rp->add_option("--coll", replay->collectives, "collective algorithm, e.g. allreduce=ring (see perfcast list)");
  rp->add_option("--eager-threshold", replay->eager_threshold, "bytes below which sends return at once")
      ->capture_default_str();
  rp->add_flag("--no-crosstraffic", replay->no_crosstraffic, "smpi: do not load the reverse route");
  rp->add_flag("--no-solution-cache", replay->no_solution_cache,
               "smpi: solve the bandwidth sharing anew at every event (results equal up to rounding; slower; for checking)");
  rp->add_option("--timeline", replay->timeline, "write an SVG timeline (ranks by time) to this file (- for stdout)");
  rp->add_flag("--force", replay->force, "replace output files that perfcast did not write");
  rp->add_flag("--json", replay->json, "print a JSON object instead of a table");
  rp->add_flag("--per-rank", replay->per_rank,
               fmt::format("a table row per rank whatever the count (default: rows up to {} ranks, a summary above)",
                           kRowsByDefault));
  rp->add_flag("--summary", replay->summary,
               "summarize the ranks (min, mean, max) instead of a row per rank, in the table or the JSON");
  rp->add_flag("--quiet,-q", replay->quiet, "no progress display");
  out.push_back({rp, [replay] { return run_replay(*replay); }});

  auto* ls = app.add_subcommand("list", "list network models, collective algorithms, placements, balancers, scheduling policies, distributions");
  out.push_back({ls, [] { return run_list(); }});
}

} // namespace perfcast::cli
