// The perfcast command. It parses flags and calls the library; it holds no
// logic of its own. User errors arrive as perfcast::Error and end here.
#include "core/AtomicFile.hpp"
#include "core/Error.hpp"
#include "core/Text.hpp"
#include "core/Units.hpp"
#include "net/NetworkModel.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/Study.hpp"
#include "report/PlotSvg.hpp"
#include "report/ReplayOutput.hpp"
#include "sim/Collectives.hpp"
#include "sim/Replay.hpp"
#include "trace/TraceReader.hpp"
#include "trace/Tracing.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace {

using namespace perfcast;

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
  bool no_crosstraffic = false;
  bool no_solution_cache = false;
  bool quiet = false;
};

double loggp_value(const std::string& key, const std::string& text)
{
  auto v = key == "G" ? parse_number(text) : parse_duration(text);
  if (!v || *v < 0)
    throw Error(fmt::format("--loggp {}={}: expected a non-negative {}", key, text,
                            key == "G" ? "number of seconds per byte" : "duration such as 5us"));
  return *v;
}

int run_replay(const ReplayArgs& a)
{
  Platform platform = load_platform(a.platform);
  TraceIndex trace = read_trace_index(a.index);
  Placement placement = a.hostfile.empty() ? place_by_policy(platform, a.placement, trace.ranks())
                                           : place_by_hostfile(platform, a.hostfile, trace.ranks());
  ReplayOptions options;
  options.network = a.network;
  options.eager_threshold_bytes = a.eager_threshold;
  options.network_options.crosstraffic = !a.no_crosstraffic;
  options.network_options.solution_cache = !a.no_solution_cache;
  options.record_timeline = !a.timeline.empty();
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
  auto algorithms = collective_algorithms();
  for (const std::string& kv : a.collectives) {
    auto eq = kv.find('=');
    if (eq == std::string::npos)
      throw Error(fmt::format("--coll '{}': expected COLLECTIVE=ALGORITHM, such as bcast=linear", kv));
    std::string name = kv.substr(0, eq);
    if (!algorithms.count(name))
      throw Error(fmt::format("--coll '{}': no algorithm choice for '{}' (see perfcast list)", kv, name));
    options.collectives.algorithm[name] = kv.substr(eq + 1);
  }
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
  if (a.json)
    std::cout << replay_to_json(report, platform).dump(2) << "\n";
  else
    std::cout << format_replay_table(report, platform);
  if (!a.timeline.empty()) {
    write_file_atomically(a.timeline, timeline_svg(report, "perfcast replay of " + a.index));
    if (!a.json)
      std::cout << "\ntimeline written to " << a.timeline << "\n";
  }
  return 0;
}

struct ModelArgs {
  std::vector<std::string> runs;
  std::string platform;
  std::string output;
  std::string model;
  std::string procs = "1..64:x2";
  std::string placement = "spread";
  std::vector<std::string> measured;
  std::string svg;
  double threshold = 0.05;
  int best_group = 0;
  int group_procs = 0;
  bool json = false;
  bool paper = false;
};

std::vector<MeasuredRun> load_all_runs(const std::vector<std::string>& files)
{
  std::vector<MeasuredRun> runs;
  for (const auto& f : files) {
    auto r = load_runs(f);
    runs.insert(runs.end(), r.begin(), r.end());
  }
  return runs;
}

int run_fit(const ModelArgs& a)
{
  Platform platform = load_platform(a.platform);
  auto runs = load_all_runs(a.runs);
  QueueingModel model = fit_queueing_model(runs, platform, a.paper ? ModelVariant::paper() : ModelVariant{});
  AmdahlModel amdahl = fit_amdahl(runs);
  nlohmann::json j = model_to_json(model, amdahl);
  write_file_atomically(a.output, j.dump(2) + "\n");
  if (a.json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("queueing-network model fitted on {} runs ({}; {} iterations)\n", runs.size(),
                           model.fit_message, model.iterations);
  std::cout << fmt::format("  W (computation)       {:.6g} flop\n", model.work_flops);
  std::cout << fmt::format("  Net_Constant          {:.6g}\n", model.net_constant);
  std::cout << fmt::format("  V_comp / V_comm       {:.4f} / {:.4f}\n", model.v_comp, model.v_comm);
  std::cout << fmt::format("  network               {} queue{} per node{}\n", model.duplex_nic ? 2 : 1,
                           model.duplex_nic ? "s (full duplex)" : " (as the paper)",
                           model.latency_delay ? ", route latency as a delay" : ", no start-up time (as the paper)");
  std::cout << fmt::format("  s(n) sends/process    {} ({})\n", model.sends.describe(), curve_form_name(model.sends.form));
  std::cout << fmt::format("  m(n) message bytes    {} ({})\n", model.message_bytes.describe(),
                           curve_form_name(model.message_bytes.form));
  std::cout << fmt::format("  Amdahl baseline       T(n) = {:.6g} + {:.6g} / n\n", amdahl.serial_s, amdahl.parallel_s);
  if (!model.curves_cross_validated)
    std::cout << "  note: fewer than 3 process counts: s(n) and m(n) take the paper's forms, not cross-validated\n";
  std::cout << fmt::format("\n{:>6} {:>12} {:>12} {:>9}  {}\n", "procs", "measured_s", "fitted_s", "error_%", "run");
  for (std::size_t i = 0; i < runs.size(); ++i)
    std::cout << fmt::format("{:>6} {:>12.6g} {:>12.6g} {:>9.2f}  {}\n", runs[i].procs, runs[i].time_s,
                             runs[i].time_s * (1 + model.residuals[i]), 100 * model.residuals[i], runs[i].source);
  std::cout << "\nmodel written to " << a.output << "\n";
  return 0;
}

int run_predict(const ModelArgs& a)
{
  Platform platform = load_platform(a.platform);
  auto [model, amdahl] = model_from_json(read_file(a.model, "model file"), a.model);
  std::vector<int> procs = parse_proc_counts(a.procs);
  auto points = sweep(model, amdahl, platform, a.placement, procs);
  int turn = turning_point(points, a.threshold);
  auto measured = load_all_runs(a.measured);
  std::optional<GroupChoice> group;
  int group_n = a.group_procs > 0 ? a.group_procs : procs.back();
  if (a.best_group > 0)
    group = best_group(model, platform, a.best_group, group_n);
  if (a.json) {
    nlohmann::json j;
    nlohmann::json rows = nlohmann::json::array();
    for (const SweepPoint& p : points)
      rows.push_back({{"procs", p.queueing.procs},
                      {"predicted_s", p.queueing.time_s},
                      {"amdahl_s", p.amdahl_s},
                      {"speedup", p.speedup},
                      {"bottleneck", p.queueing.bottleneck},
                      {"bottleneck_utilization", p.queueing.bottleneck_utilization},
                      {"exact_mva", p.queueing.exact}});
    j["predictions"] = rows;
    j["turning_point"] = {{"procs", turn}, {"threshold", a.threshold}};
    if (group)
      j["best_group"] = {{"servers", group->hosts}, {"procs", group_n}, {"predicted_s", group->time_s},
                         {"exhaustive", group->exhaustive}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("{:>6} {:>14} {:>12} {:>9}  {}\n", "procs", "predicted_s", "amdahl_s", "speedup",
                             "bottleneck (utilisation)");
    for (const SweepPoint& p : points)
      std::cout << fmt::format("{:>6} {:>14.6g} {:>12.6g} {:>9.2f}  {} ({:.0f}%){}\n", p.queueing.procs,
                               p.queueing.time_s, p.amdahl_s, p.speedup, p.queueing.bottleneck,
                               100 * p.queueing.bottleneck_utilization, p.queueing.exact ? "" : " [approximate MVA]");
    std::cout << fmt::format("\nturning point: {} processes (the next step gains less than {:.0f}%)\n", turn,
                             100 * a.threshold);
    if (group) {
      std::string names;
      for (const auto& h : group->hosts)
        names += (names.empty() ? "" : ", ") + h;
      std::cout << fmt::format("best group of {} servers for {} processes: {} ({:.6g} s{})\n", a.best_group,
                               group_n, names, group->time_s, group->exhaustive ? "" : ", greedy search");
    }
  }
  if (!a.svg.empty()) {
    PlotSeries qn{"queueing model", "#4c78a8", {}, false}, am{"Amdahl baseline", "#f58518", {}, false},
        ms{"measured", "#e45756", {}, true};
    for (const SweepPoint& p : points) {
      qn.points.emplace_back(p.queueing.procs, p.queueing.time_s);
      am.points.emplace_back(p.queueing.procs, p.amdahl_s);
    }
    for (const MeasuredRun& r : measured)
      ms.points.emplace_back(r.procs, r.time_s);
    std::vector<PlotSeries> series{qn, am};
    if (!ms.points.empty())
      series.push_back(ms);
    write_file_atomically(a.svg, line_chart_svg("predicted run time (" + a.placement + " placement)", "processes",
                                                "seconds", series));
  }
  return 0;
}

int run_compare(const ModelArgs& a)
{
  Platform platform = load_platform(a.platform);
  auto runs = load_all_runs(a.runs);
  auto results = leave_one_out(runs, platform);
  if (a.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const Accuracy& acc : results)
      j.push_back({{"model", acc.model}, {"accuracy_percent", acc.accuracy_percent}, {"cv", acc.cv},
                   {"predicted_s", acc.predicted_s}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("leave-one-out over {} runs\n\n{:<18} {:>12} {:>8}\n", runs.size(), "model",
                           "accuracy_%", "CV");
  for (const Accuracy& acc : results)
    std::cout << fmt::format("{:<18} {:>12.2f} {:>8.3f}\n", acc.model, acc.accuracy_percent, acc.cv);
  std::cout << fmt::format("\n{:>6} {:>12} {:>12} {:>12}  {}\n", "procs", "measured_s", "queueing_s", "amdahl_s", "run");
  for (std::size_t i = 0; i < runs.size(); ++i)
    std::cout << fmt::format("{:>6} {:>12.6g} {:>12.6g} {:>12.6g}  {}\n", runs[i].procs, runs[i].time_s,
                             results[0].predicted_s[i], results[1].predicted_s[i], runs[i].source);
  return 0;
}

int run_trace(const std::string& dir, bool force, const std::vector<std::string>& command, const std::string& mpi)
{
  auto [status, profile] = run_traced(dir, force, command, mpi);
  std::cerr << fmt::format("perfcast trace: {} ranks traced into {} ({}); index {}/trace.txt, profile {}/profile.json\n",
                           profile.ranks.size(), dir, profile.complete ? "complete" : "INCOMPLETE", dir, dir);
  if (!profile.complete)
    for (const RankProfile& r : profile.ranks)
      if (!r.complete)
        std::cerr << fmt::format("perfcast trace: rank {} stopped early: {}\n", r.rank, r.ended_by);
  if (status != 0)
    return status;
  return profile.complete ? 0 : 3;
}

int run_profile(const std::string& dir, bool json)
{
  RunProfile profile = read_run_profile(dir);
  if (json)
    std::cout << run_profile_to_json(profile).dump(2) << "\n";
  else
    std::cout << format_run_profile(profile);
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
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  CLI::App app{"perfcast: predict how an MPI application performs on a machine you do not have"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "perfcast 0.1.0");

  ReplayArgs replay;
  auto* rp = app.add_subcommand("replay", "replay a time-independent MPI trace on a platform");
  rp->add_option("index", replay.index, "trace index file (one trace file per rank, or one shared file)")->required();
  rp->add_option("--platform,-p", replay.platform, "platform file: perfcast JSON or SimGrid v4.1 XML")->required();
  rp->add_option("--hostfile", replay.hostfile, "SimGrid-style hostfile: rank i on line i modulo its length");
  rp->add_option("--placement", replay.placement, "round-robin, block, or a list HOST,HOST:2,...")
      ->capture_default_str();
  rp->add_option("--net", replay.network, "network model: smpi or loggp")->capture_default_str();
  rp->add_option("--loggp", replay.loggp, "LogGP parameters: L=5us o=1us G=8e-9 (defaults from the platform)");
  rp->add_option("--coll", replay.collectives, "collective algorithm, e.g. allreduce=ring (see perfcast list)");
  rp->add_option("--eager-threshold", replay.eager_threshold, "bytes below which sends return at once")
      ->capture_default_str();
  rp->add_flag("--no-crosstraffic", replay.no_crosstraffic, "smpi: do not load the reverse route");
  rp->add_flag("--no-solution-cache", replay.no_solution_cache,
               "smpi: solve the bandwidth sharing anew at every event (results equal up to rounding; slower; for checking)");
  rp->add_option("--timeline", replay.timeline, "write an SVG timeline (ranks by time) to this file");
  rp->add_flag("--json", replay.json, "print a JSON object instead of a table");
  rp->add_flag("--quiet,-q", replay.quiet, "no progress display");

  auto* ls = app.add_subcommand("list", "list network models, collective algorithms and placement policies");

  std::string trace_dir;
  bool trace_force = false;
  std::vector<std::string> trace_command;
  auto* tr = app.add_subcommand("trace", "run an MPI program with the tracer preloaded: perfcast trace -o DIR -- "
                                         "mpirun -np 4 ./app");
  tr->add_option("-o,--output", trace_dir, "trace directory (refused if it exists and is not empty)")->required();
  tr->add_flag("--force", trace_force, "overwrite an existing trace directory");
  std::string trace_mpi = "auto";
  tr->add_option("--mpi", trace_mpi, "MPI implementation of the program: auto (from the launcher), openmpi or mpich")
      ->capture_default_str();
  tr->add_option("command", trace_command, "the command after --")->required();
  bool profile_json = false;
  std::string profile_dir;
  auto* pf = app.add_subcommand("profile", "report the run profile of a traced run");
  pf->add_option("dir", profile_dir, "trace directory written by perfcast trace")->required();
  pf->add_flag("--json", profile_json, "print JSON (the perfcast-runs format, with per-rank details)");

  ModelArgs margs;
  auto* fit = app.add_subcommand("fit", "fit a performance model to measured runs");
  fit->require_subcommand(1);
  auto* fit_qn = fit->add_subcommand("qn", "the queueing-network model of Saad et al. (and the Amdahl baseline)");
  fit_qn->add_option("runs", margs.runs, "run files: CSV, perfcast runs JSON, or perfcast replay --json output")
      ->required();
  fit_qn->add_option("--platform,-p", margs.platform, "platform the runs were measured on")->required();
  fit_qn->add_option("-o,--output", margs.output, "model file to write")->required();
  fit_qn->add_flag("--json", margs.json, "print the model as JSON");
  fit_qn->add_flag("--paper", margs.paper,
                   "the paper's model exactly: one network queue per node, no start-up time (default: duplex NIC "
                   "and route latency)");

  auto* pr = app.add_subcommand("predict", "predict run times with a fitted model");
  pr->add_option("model", margs.model, "model file from perfcast fit")->required();
  pr->add_option("--platform,-p", margs.platform, "platform to predict for")->required();
  pr->add_option("--procs", margs.procs, "process counts: 2..64, 2..64:x2, 4..64:+4 or 2,4,8")->capture_default_str();
  pr->add_option("--placement", margs.placement, "spread, pack or a hostfile")->capture_default_str();
  pr->add_option("--threshold", margs.threshold, "turning point: smallest gain worth a step")->capture_default_str();
  pr->add_option("--best-group", margs.best_group, "also name the best K servers of the platform");
  pr->add_option("--group-procs", margs.group_procs, "process count for --best-group (default: the largest of --procs)");
  pr->add_option("--measured", margs.measured, "run files to draw as measured points");
  pr->add_option("--svg", margs.svg, "write the curves as SVG");
  pr->add_flag("--json", margs.json, "print JSON objects with procs and predicted_s");

  auto* cmp = app.add_subcommand("compare", "leave-one-out accuracy of the queueing model and the Amdahl baseline");
  cmp->add_option("runs", margs.runs, "run files")->required();
  cmp->add_option("--platform,-p", margs.platform, "platform the runs were measured on")->required();
  cmp->add_flag("--json", margs.json, "print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (*rp)
      return run_replay(replay);
    if (*ls)
      return run_list();
    if (*fit_qn)
      return run_fit(margs);
    if (*tr)
      return run_trace(trace_dir, trace_force, trace_command, trace_mpi);
    if (*pf)
      return run_profile(profile_dir, profile_json);
    if (*pr)
      return run_predict(margs);
    if (*cmp)
      return run_compare(margs);
  } catch (const perfcast::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: internal: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
