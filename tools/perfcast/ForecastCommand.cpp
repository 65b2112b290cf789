// perfcast forecast: a program's runs at a few counts to a forecast at larger
// counts on a target platform, every method validated on the runs, the best
// one answering (src/forecast, docs/forecast.md).
#include "Command.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "forecast/Forecast.hpp"
#include "net/NetworkModel.hpp"
#include "platform/Platform.hpp"
#include "qn/Study.hpp"

#include <iostream>
#include <unistd.h>

namespace perfcast::cli {
namespace {

struct ForecastArgs {
  std::vector<std::string> runs;
  std::string platform;
  std::string procs;
  std::string placement = "spread";
  std::string network = "smpi";
  std::vector<std::string> checks;
  std::vector<std::string> speed_factors, benchmarks, probes;
  double traced_speed = 0;
  std::string report;
  bool json = false;
  bool force = false;
  bool quiet = false;
};

int run_forecast(const ForecastArgs& a)
{
  check_network_model_name(a.network);
  OutputTarget report;
  if (!a.report.empty())
    report = check_output(a.report, "forecast report", a.force);
  Platform platform = load_platform(a.platform);
  ForecastOptions o;
  o.procs = parse_proc_counts(a.procs);
  o.placement = a.placement;
  o.replay.network = a.network;
  o.checks = a.checks;
  for (const std::string& t : a.speed_factors)
    o.speeds.push_back(speed_factor_rule(t));
  for (const std::string& t : a.benchmarks)
    o.speeds.push_back(benchmark_rule(t));
  for (const std::string& t : a.probes)
    o.speeds.push_back(probe_rule(t));
  o.traced_speed = a.traced_speed;
  if (!a.quiet && isatty(STDERR_FILENO))
    o.progress = [](const std::string& line) { std::cerr << "forecast: " << line << "\n"; };
  Forecast f = forecast(a.runs, platform, a.platform, o);
  print_warnings(f.warnings());
  if (!a.report.empty())
    write_output(report, mark_svg(f.svg()));
  if (a.json)
    std::cout << f.to_json().dump(2) << "\n";
  else
    std::cout << f.text() << (a.report.empty() ? "" : "wrote " + a.report + "\n");
  return 0;
}

} // namespace

void add_forecast_commands(CLI::App& app, std::vector<Command>& out)
{
  auto a = std::make_shared<ForecastArgs>();
  auto* fc = app.add_subcommand("forecast", "forecast run times at larger counts on a target platform from a "
                                            "program's runs at a few counts, with the best-validated method");
  fc->add_option("runs", a->runs, "the program's runs: trace indexes or perfcast trace directories, one per count")
      ->required();
  fc->add_option("--platform,-p", a->platform, "target platform (XML or JSON)")->required();
  fc->add_option("--procs", a->procs, "target process counts: 16,32,64 or 16..64:x2")->required();
  fc->add_option("--placement", a->placement, "spread, pack or a hostfile")->capture_default_str();
  fc->add_option("--net", a->network, "network model of the replays (smpi, loggp, ...)")->capture_default_str();
  fc->add_option("--check", a->checks, "traces at target counts: replayed on the target and scored");
  fc->add_option("--speed-factor", a->speed_factors,
                 "[HOST_PREFIX=]F: the target's hosts (those whose names start with the prefix) run the traced "
                 "computation F times as fast as the traced machine");
  fc->add_option("--probe", a->probes,
                 "[HOST_PREFIX=]FILE: a perfcast probe file taken on a node of the target; F is its rate over the "
                 "traced machine's on the same kernel");
  fc->add_option("--benchmark", a->benchmarks,
                 "[HOST_PREFIX=]NAME:TARGET:TRACED: one benchmark's rate on a core of the target and of the traced "
                 "machine; F = TARGET / TRACED");
  fc->add_option("--traced-speed", a->traced_speed,
                 "the traced machine's rate per core, in the traces' unit per second, for traces without the "
                 "tracer's header (smpirun's: its smpi/host-speed)")
      ->check(CLI::PositiveNumber);
  fc->add_option("-o,--report", a->report, "write the report's chart (SVG): runs, every method, the band, warnings");
  fc->add_flag("--json", a->json, "print the forecast as JSON");
  fc->add_flag("--force", a->force, "replace a report file perfcast did not write");
  fc->add_flag("-q,--quiet", a->quiet, "no progress lines");
  out.push_back({fc, [a] { return run_forecast(*a); }});
}

} // namespace perfcast::cli
