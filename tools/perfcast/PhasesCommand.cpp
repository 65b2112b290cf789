// perfcast phases run / predict: Escobar and Boppana's prediction of a large
// run from small ones (docs/phases.md).
#include "Command.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "phase/KernelDatabase.hpp"
#include "phase/PhasePredictor.hpp"
#include "phase/PhaseRunner.hpp"
#include "phase/SeriesPrediction.hpp"

#include <fmt/format.h>
#include <iostream>
#include <map>
#include <optional>
#include <unistd.h>

namespace perfcast::cli {
namespace {

struct PhasesRunArgs {
  std::string dir, sizes;
  std::vector<std::string> command;
  int more = 5, max_sizes = 20, max_phases = 4;
  double tolerance = 0.05, threshold = 0.7;
  bool force = false;
  std::string clock = "own";
  int hz = phase::kDefaultProfileHz;
  int repeat = 3; ///< a median of three drops one run the host's drift took off either way
  int max_repeat = 7; ///< more runs while no majority agrees within the tolerance (phase::runs_agree)
};

struct PhasesMeasureArgs {
  std::string dir, clock = "own";
  double size = 0;
  std::vector<std::string> command;
  int hz = phase::kDefaultProfileHz;
  int repeat = 1;
  bool force = false;
};

struct PhasesPredictArgs {
  std::string dir, kernels, svg, measured;
  double size = 0, threshold = 0.7;
  int max_phases = 4;
  int run = 0; ///< 0: the kept run of each size; k: the k-th repeat
  int size_dim = 0; ///< 0: eq. 1 on the sizes as given (the paper's); D: the application's size is D-dimensional
  std::string choice = "within-spread"; ///< or best-score
  bool json = false, force = false;
};

int run_phases_run(const PhasesRunArgs& a) {
  phase::PhaseRunOptions o;
  o.command = a.command;
  o.ladder = phase::parse_size_ladder(a.sizes);
  o.more = a.more;
  o.tolerance = a.tolerance;
  o.max_sizes = a.max_sizes;
  o.rule.threshold = a.threshold;
  o.rule.max_phases = a.max_phases;
  o.force = a.force;
  o.clock = a.clock;
  o.hz = a.hz;
  o.repeat = a.repeat;
  o.max_repeat = a.max_repeat;
  const phase::PhaseRunLog log = phase::run_small_runs(a.dir, o, [](const std::string& line) {
    std::cerr << "perfcast phases: " << line << std::endl;
  });
  std::cout << fmt::format("converged at size {:g}; sizes for the prediction: {}\n", log.converged_at,
                           fmt::join(log.used, ", "));
  // How far the used sizes carry a power law at their repeats' spread
  // (phase::extrapolation_noise); the issue asks for 2x the largest.
  std::vector<double> spreads;
  for (double size : log.used)
    for (const phase::SizeRecord& s : log.sizes)
      if (s.size == size && s.runs.size() >= 2) spreads.push_back(s.spread());
  const double spread = phase::median_spread(spreads);
  if (spread > 0 && log.used.size() >= 2) {
    const double carried = phase::supported_factor(log.used, spread);
    std::cout << fmt::format("the used sizes span {:.3g}x at a {:.1f}% spread of their repeats: a power law through "
                             "them carries about {:.3g}x the largest size within 10%\n",
                             log.used.back() / log.used.front(), 100 * spread, carried);
    if (carried < 2) {
      const double step = phase::geometric_step_for(static_cast<int>(log.used.size()), 2, spread);
      std::cerr << fmt::format("warning: too short a span for a target 2x the largest size; {}\n",
                               step > 0 ? fmt::format("a geometric ladder with factor {:.3g} or more "
                                                      "(--sizes START:*{:.3g}) would carry it", step, step)
                                        : std::string("more repeats or more sizes (--more) are needed at this spread"));
    }
  }
  // the phases chosen at C, with their shares at the largest size
  const phase::MergedProfile m = phase::load_size_profile(a.dir, log.sizes.back());
  const phase::PhaseSet p = phase::same_phases_in({log.phases, {}, 0}, m.names, m.stacks);
  for (std::size_t i = 0; i < p.phases.size(); ++i)
    std::cout << fmt::format("phase {}: {:.1f}% of the run at size {:g}\n", p.phases[i], 100 * p.shares[i], m.size);
  return 0;
}

int run_phases_measure(const PhasesMeasureArgs& a) {
  phase::PhaseRunOptions o;
  o.command = a.command;
  o.force = a.force;
  o.clock = a.clock;
  o.hz = a.hz;
  o.repeat = a.repeat;
  // the profile of the size measured now (a directory may hold earlier sizes of the same command)
  const phase::MergedProfile m = phase::measure_size(a.dir, o, a.size, [](const std::string& line) {
    std::cerr << "perfcast phases: " << line << std::endl;
  });
  std::cout << fmt::format("size {:g}: {:.4g} s per rank ({} rank(s))\n", m.size, m.seconds(), m.ranks);
  return 0;
}

int run_phases_predict(const PhasesPredictArgs& a) {
  std::optional<OutputTarget> svg;
  if (!a.svg.empty()) svg = check_output(a.svg, "SVG", a.force);
  phase::SeriesPredictionOptions o;
  o.dir = a.dir;
  o.kernels = a.kernels;
  o.measured = a.measured;
  o.size = a.size;
  o.threshold = a.threshold;
  o.max_phases = a.max_phases;
  o.run = a.run;
  o.size_dim = a.size_dim;
  o.choice = a.choice;
  const phase::SeriesPrediction p = phase::predict_series(o);
  if (svg) write_output(*svg, mark_svg(p.svg()));
  if (a.json) {
    std::cout << p.to_json().dump(2) << "\n";
  } else {
    p.print_table(std::cout);
    print_warnings(p.warnings());
  }
  return 0;
}

} // namespace

void add_phases_commands(CLI::App& app, std::vector<Command>& out) {
  auto* phases = app.add_subcommand("phases", "predict a large run from small ones (phases matched to kernels)");
  phases->require_subcommand(1);
  auto r = std::make_shared<PhasesRunArgs>();
  auto* run = phases->add_subcommand("run", "run the command at growing sizes under the profiler until the phases converge");
  run->add_option("-o,--output", r->dir, "directory for the profiles (re-running on it reuses the sizes done)")->required();
  run->add_option("--sizes", r->sizes, "START:+STEP, START:*FACTOR or START:*FACTOR:round (integers), e.g. 40:+8 or 50:*1.19:round")->required();
  run->add_option("--more", r->more, "sizes after convergence (the paper's N)")->capture_default_str()->check(CLI::Range(3, 100));
  run->add_option("--tolerance", r->tolerance, "largest change of a phase's share that counts as converged")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  run->add_option("--threshold", r->threshold, "share of the run the phases must hold")->capture_default_str()->check(CLI::Range(0.01, 1.0));
  run->add_option("--max-phases", r->max_phases, "most phases")->capture_default_str()->check(CLI::Range(1, 8));
  run->add_option("--max-sizes", r->max_sizes, "give up after this many sizes without convergence")
      ->capture_default_str()->check(CLI::Range(2, 1000));
  run->add_flag("--force", r->force, "use a directory that holds other files");
  run->add_option("--clock", r->clock,
                  "sampling clock: own (time the main thread runs or waits in calls, not time other processes take "
                  "its core), wall, or cpu (CPU time, about 280 samples per second here)")
      ->capture_default_str()->check(CLI::IsMember({"own", "wall", "cpu"}));
  run->add_option("--hz", r->hz, "samples per second asked (CPU-time timers deliver about 280 here)")
      ->capture_default_str()->check(CLI::Range(10, 10000));
  run->add_option("--repeat", r->repeat,
                  "runs per size; the median by sampled seconds stands for the size (the mean of the middle two for an "
                  "even count), the spread recorded in phases.json")
      ->capture_default_str()->check(CLI::Range(1, 100));
  run->add_option("--max-repeat", r->max_repeat,
                  "runs per size at most: after --repeat runs, more while no majority of the size's runs agree within "
                  "--tolerance in sampled seconds (such a size cannot judge convergence)")
      ->capture_default_str()->check(CLI::Range(1, 100));
  run->add_option("command", r->command, "the command after --, with {size} where the size goes")->required();
  out.push_back({run, [r] { return run_phases_run(*r); }});

  auto m = std::make_shared<PhasesMeasureArgs>();
  auto* measure = phases->add_subcommand("measure", "profile the command once at one size (the run a prediction is checked against)");
  measure->add_option("-o,--output", m->dir, "directory for the profiles")->required();
  measure->add_option("--size", m->size, "the size to run")->required();
  measure->add_option("--clock", m->clock, "sampling clock (as for phases run)")
      ->capture_default_str()->check(CLI::IsMember({"own", "wall", "cpu"}));
  measure->add_option("--hz", m->hz, "samples per second asked")->capture_default_str()->check(CLI::Range(10, 10000));
  measure->add_option("--repeat", m->repeat, "runs; the median by sampled seconds stands for the size")
      ->capture_default_str()->check(CLI::Range(1, 100));
  measure->add_flag("--force", m->force, "use a directory that holds other files");
  measure->add_option("command", m->command, "the command after --, with {size} where the size goes")->required();
  out.push_back({measure, [m] { return run_phases_measure(*m); }});

  auto p = std::make_shared<PhasesPredictArgs>();
  auto* predict = phases->add_subcommand("predict", "predict the run at a size from the small runs and a kernel database");
  predict->add_option("dir", p->dir, "directory written by perfcast phases run")->required();
  predict->add_option("--size", p->size, "target input size")->required();
  predict->add_option("--kernels", p->kernels, "kernel database of this machine and process count (perfcast kernels build)")->required();
  predict->add_option("--threshold", p->threshold, "share of the run the phases must hold (series written before the phases were kept in phases.json)")->capture_default_str()->check(CLI::Range(0.01, 1.0));
  predict->add_option("--max-phases", p->max_phases, "most phases (series written before the phases were kept in phases.json)")->capture_default_str()->check(CLI::Range(1, 8));
  predict->add_option("--measured", p->measured,
                      "directory of the run at the target size (perfcast phases measure): errors per phase and overall");
  predict->add_option("--svg", p->svg, "write measured and predicted times against size as SVG");
  predict->add_option("--run", p->run,
                      "use the K-th run of each small size (phases run --repeat) instead of the fastest: independent "
                      "sets of small runs")->check(CLI::Range(1, 100));
  predict->add_option("--size-dim", p->size_dim,
                      "the dimensions the size spans (e.g. 3: points a side of a 3-D grid; 2: a matrix order): "
                      "eq. 1 then compares sizes in points, each kernel's by its unit in the database; "
                      "without it, the sizes as given (the paper's)")
      ->check(CLI::Range(1, 3));
  predict->add_option("--choice", p->choice,
                      "where scores differ by less than the small runs' spread: within-spread (the simplest own-fit "
                      "form, the mean of a kernel and an own fit, the mean of the run's rules) or best-score (the "
                      "smallest score always wins)")
      ->capture_default_str()->check(CLI::IsMember({"within-spread", "best-score"}));
  predict->add_flag("--force", p->force, "replace an output file that perfcast did not write");
  predict->add_flag("--json", p->json, "print a JSON object instead of tables");
  out.push_back({predict, [p] { return run_phases_predict(*p); }});
}

} // namespace perfcast::cli
