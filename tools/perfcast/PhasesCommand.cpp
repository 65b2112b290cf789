// perfcast phases run / predict: Escobar and Boppana's prediction of a large
// run from small ones (docs/phases.md).
#include "Command.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "phase/KernelDatabase.hpp"
#include "phase/PhasePredictor.hpp"
#include "phase/PhaseRunner.hpp"
#include "report/PlotSvg.hpp"

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

/// The measured run a prediction is checked against (perfcast phases measure).
struct MeasuredRun {
  double total_s = 0;
  std::map<std::string, double> phase_s;
};

// Every repeat of a size, the run's seconds and each phase's (for their medians over the repeats).
std::vector<phase::RepeatTimes> repeat_times(const std::string& dir, const phase::SizeRecord& record,
                                             const std::vector<std::string>& phases) {
  std::vector<phase::RepeatTimes> repeats;
  for (std::size_t k = 1; k <= record.runs.size(); ++k) {
    const phase::MergedProfile one = phase::load_size_profile(dir, phase::pick_run(record, static_cast<int>(k)));
    phase::RepeatTimes t{one.seconds(), {}};
    for (const std::string& p : phases) t.phase_seconds[p] = one.inclusive_seconds(p);
    repeats.push_back(std::move(t));
  }
  return repeats;
}

MeasuredRun load_measured(const std::string& dir, double size, const std::vector<std::string>& phases) {
  const phase::PhaseRunLog log = phase::read_phase_runs(dir);
  for (const phase::SizeRecord& r : log.sizes)
    if (r.size == size && r.status == 0) {
      const phase::MergedProfile m = phase::load_size_profile(dir, r);
      MeasuredRun out{m.seconds(), {}};
      for (const std::string& p : phases) out.phase_s[p] = m.inclusive_seconds(p);
      if (r.runs.size() < 2) return out;
      // Each phase at its own median over the repeats, as the small sizes
      // (the median run by total need not hold the phase's median); the run
      // stays the median run by total.
      out.phase_s = phase::size_run_from_repeats(size, repeat_times(dir, r, phases), phases).phase_seconds;
      return out;
    }
  throw Error(fmt::format("{}/phases.json: no run at size {:g} (expected perfcast phases measure -o {} --size {:g})",
                          dir, size, dir, size));
}

/// The rule that carried the phases to the run, or the rules averaged.
std::string total_rule(const phase::TotalForecast& t) {
  if (t.averaged.size() <= 1) return t.candidates[t.chosen].rule;
  std::vector<std::string> names;
  for (int i : t.averaged) names.push_back(t.candidates[i].rule);
  return fmt::format("mean of {}", fmt::join(names, ", "));
}

/// Relative error of a prediction, or null when nothing was measured.
nlohmann::json relative_error(double predicted, double measured) {
  return measured > 0 ? nlohmann::json((predicted - measured) / measured) : nlohmann::json(nullptr);
}

std::string forecast_svg(const phase::PhaseRunLog& log, const std::vector<phase::SizeRun>& runs,
                         const phase::RunForecast& f, const std::string& dir) {
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};
  std::vector<PlotSeries> series;
  PlotSeries total{"run, measured", "#333333", {}, true};
  for (const phase::SizeRun& r : runs) total.points.push_back({r.size, r.total_seconds});
  series.push_back(total);
  series.push_back({"run, predicted", "#333333", {{f.size, f.predicted_s}}, true});
  for (std::size_t i = 0; i < f.phases.size(); ++i) {
    const phase::PhaseForecast& p = f.phases[i];
    const char* colour = colours[i % 5];
    PlotSeries measured{p.name + ", measured", colour, {}, true};
    for (const phase::SizeRun& r : runs) measured.points.push_back({r.size, r.phase_seconds.at(p.name)});
    series.push_back(measured);
    PlotSeries predicted{fmt::format("{}, predicted ({})", p.name, p.method == "kernel" ? "kernel " + p.candidates[p.selection.chosen].kernel : p.method == "combined" ? "kernel " + p.candidates[p.selection.chosen].kernel + " and own fit" : p.method == "remainder-share" ? "with the time outside the phases" : "own fit"), colour, {}, false};
    predicted.points.push_back({runs.back().size, runs.back().phase_seconds.at(p.name)});
    predicted.points.push_back({f.size, p.predicted_s});
    series.push_back(predicted);
  }
  LineChart chart;
  chart.title = fmt::format("Phases measured at sizes {:g} to {:g}, predicted at {:g}", runs.front().size,
                            runs.back().size, f.size);
  chart.subtitle = fmt::format("{} (converged at {:g})", dir, log.converged_at);
  chart.x_label = "input size";
  chart.y_label = "seconds per rank";
  return line_chart_svg(chart, series);
}

int run_phases_predict(const PhasesPredictArgs& a) {
  if (!(a.size > 0)) throw Error(fmt::format("--size {} (expected a positive target size)", a.size));
  std::optional<OutputTarget> svg;
  if (!a.svg.empty()) svg = check_output(a.svg, "SVG", a.force);
  const phase::PhaseRunLog log = phase::read_phase_runs(a.dir);
  if (log.used.size() < 3)
    throw Error(fmt::format("{}/phases.json: {} size(s) after convergence (expected at least 3: run perfcast phases "
                            "run to the end)",
                            a.dir, log.used.size()));
  const phase::KernelDatabase db = phase::KernelDatabase::open(a.kernels);
  std::vector<phase::KernelModel> kernels;
  for (const std::string& name : db.kernels()) kernels.push_back(db.model(name));
  if (kernels.empty())
    throw Error(fmt::format("{}: the kernel database is empty (expected kernels measured by perfcast kernels build)",
                            a.kernels));
  phase::PhaseRule rule;
  rule.threshold = a.threshold;
  rule.max_phases = a.max_phases;
  std::vector<phase::SizeRun> runs;
  // the phases the series converged on; a series written before they were
  // kept finds them at its first used size
  std::vector<std::string> phases = log.phases;
  std::vector<double> spreads; // of the repeated runs of each small size
  std::vector<std::string> unsettled;
  for (double size : log.used)
    for (const phase::SizeRecord& r : log.sizes)
      if (r.size == size) {
        spreads.push_back(r.spread());
        if (!r.settled)
          unsettled.push_back(fmt::format("{:g} ({} runs, the tightest majority {:.1f}% apart)", size, r.runs.size(),
                                          100 * phase::majority_spread(r.runs)));
        const phase::MergedProfile m = phase::load_size_profile(a.dir, a.run > 0 ? phase::pick_run(r, a.run) : r);
        if (phases.empty()) phases = phase::find_phases(m.names, m.stacks, rule).phases;
        phase::SizeRun run{size, m.seconds(), {}, r.runs.size() >= 2 ? r.spread() : -1};
        run.hz = m.hz;
        for (const std::string& p : phases) run.phase_seconds[p] = m.inclusive_seconds(p);
        // within-spread: each phase stands at its own median over the size's
        // repeats with its own spread as its noise; best-score takes the
        // phase in the median run by total.
        if (a.choice != "best-score" && a.run <= 0 && r.runs.size() >= 2) {
          const phase::SizeRun each = phase::size_run_from_repeats(size, repeat_times(a.dir, r, phases), phases);
          run.phase_seconds = each.phase_seconds;
          run.phase_spread = each.phase_spread;
        }
        runs.push_back(run);
      }
  // Sizes in points (--size-dim): each kernel's unit from the database; the
  // paper's eq. 1 on the sizes as given is predicted beside it, for the record.
  phase::SizeUnits units{a.size_dim, {}};
  if (a.size_dim > 0)
    for (const phase::KernelModel& k : kernels) units.kernel_dims.push_back(db.size_unit(k.name()).dim);
  const phase::Choice choice = a.choice == "best-score" ? phase::Choice::best_score : phase::Choice::within_spread;
  phase::RunForecast f = phase::predict_run(runs, phases, kernels, a.size, {}, units, choice);
  std::optional<phase::RunForecast> paper;
  std::string paper_error;
  if (a.size_dim > 0) try {
      paper = phase::predict_run(runs, phases, kernels, a.size, {}, {}, choice);
    } catch (const Error& e) {
      paper_error = e.what();
    }
  if (!unsettled.empty())
    f.warnings.push_back(fmt::format("no majority of the runs agreed at small size(s) {} (phases run --max-repeat): "
                                     "their medians may be disturbed runs",
                                     fmt::join(unsettled, ", ")));
  std::optional<MeasuredRun> measured;
  if (!a.measured.empty()) measured = load_measured(a.measured, a.size, phases);
  if (svg) write_output(*svg, mark_svg(forecast_svg(log, runs, f, a.dir)));
  if (a.json) {
    nlohmann::json j = {{"size", f.size}, {"predicted_s", f.predicted_s}, {"kernels", a.kernels},
                        {"small_sizes", log.used}, {"converged_at", log.converged_at}, {"warnings", f.warnings},
                        {"small_spreads", spreads}, {"run", a.run > 0 ? nlohmann::json(a.run) : nlohmann::json("fastest")},
                        {"size_dim", a.size_dim > 0 ? nlohmann::json(a.size_dim) : nlohmann::json(nullptr)},
                        {"sizes_compared", a.size_dim > 0 ? "points" : "as given"}, {"choice", a.choice},
                        {"spread", f.spread}};
    if (measured) {
      j["measured_s"] = measured->total_s;
      j["error"] = relative_error(f.predicted_s, measured->total_s);
    }
    nlohmann::json ph = nlohmann::json::array();
    for (const phase::PhaseForecast& p : f.phases) {
      nlohmann::json cands = nlohmann::json::array();
      for (std::size_t i = 0; i < p.candidates.size(); ++i) {
        const phase::MatchStats& c = p.candidates[i];
        cands.push_back({{"kernel", c.kernel}, {"abs_am", c.abs_am}, {"rmse", c.rmse}, {"std_dev", c.std_dev},
                         {"sf_cv", c.sf_cv}, {"av_sf", c.av_sf}, {"sf_at_size", c.sf_at_target},
                         {"pred_dev", c.pred_dev}, {"kernel_size", c.kernel_size},
                         {"supported_max_size", c.supported_max}, {"in_range", c.in_range},
                         {"kernel_dim", c.dims.kernel}, {"eligible", p.selection.standings[i].eligible}});
      }
      ph.push_back({{"name", p.name},
                    {"kernel", p.selection.chosen >= 0 ? nlohmann::json(p.candidates[p.selection.chosen].kernel)
                                                       : nlohmann::json(nullptr)},
                    {"predicted_s", p.predicted_s}, {"share", p.share}, {"method", p.method}, {"why", p.why},
                    {"kernel_s", p.kernel_s ? nlohmann::json(*p.kernel_s) : nlohmann::json(nullptr)},
                    {"validation", p.validation}, {"kernel_cv_smape", p.kernel_cv_smape}, {"own_fit", p.own_fit.describe()},
                    {"own_fit_s", p.own_fit_s}, {"own_fit_cv_smape", p.own_fit_cv_smape},
                    {"own_fit_why", p.own_fit_why}, {"own_fit_best_scored", p.own_fit_best_scored.describe()},
                    {"own_fit_range_s", {p.own_fit_low_s, p.own_fit_high_s}}, {"spread", p.spread},
                    {"samples_per_rank", p.samples_per_rank >= 0 ? nlohmann::json(p.samples_per_rank) : nlohmann::json(nullptr)},
                    {"candidates", cands}});
      if (measured) {
        const double m = measured->phase_s.at(p.name);
        ph.back()["measured_s"] = m;
        ph.back()["error"] = relative_error(p.predicted_s, m);
        ph.back()["kernel_error"] = p.kernel_s ? relative_error(*p.kernel_s, m) : nlohmann::json(nullptr);
        ph.back()["own_fit_error"] = relative_error(p.own_fit_s, m);
        ph.back()["measured_share"] = measured->total_s > 0 ? m / measured->total_s : 0.0;
      }
    }
    j["phases"] = ph;
    nlohmann::json rules = nlohmann::json::array();
    for (const phase::TotalCandidate& c : f.total.candidates) {
      rules.push_back({{"rule", c.rule}, {"predicted_s", c.total_s}, {"cv_smape", c.cv_smape}, {"detail", c.detail}});
      if (measured && c.total_s > 0) rules.back()["error"] = relative_error(c.total_s, measured->total_s);
    }
    nlohmann::json averaged = nlohmann::json::array();
    for (int i : f.total.averaged) averaged.push_back(f.total.candidates[i].rule);
    j["total"] = {{"rule", f.total.candidates[f.total.chosen].rule}, {"averaged", averaged}, {"why", f.total.why},
                  {"rules", rules}};
    if (paper) {
      nlohmann::json pp = nlohmann::json::array();
      for (const phase::PhaseForecast& p : paper->phases) {
        pp.push_back({{"name", p.name},
                      {"kernel", p.selection.chosen >= 0 ? nlohmann::json(p.candidates[p.selection.chosen].kernel)
                                                         : nlohmann::json(nullptr)},
                      {"method", p.method}, {"predicted_s", p.predicted_s},
                      {"kernel_s", p.kernel_s ? nlohmann::json(*p.kernel_s) : nlohmann::json(nullptr)}});
        if (measured) pp.back()["error"] = relative_error(p.predicted_s, measured->phase_s.at(p.name));
      }
      j["paper"] = {{"sizes_compared", "as given"}, {"predicted_s", paper->predicted_s},
                    {"rule", total_rule(paper->total)}, {"phases", pp}};
      if (measured) j["paper"]["error"] = relative_error(paper->predicted_s, measured->total_s);
    } else if (!paper_error.empty()) {
      j["paper"] = {{"sizes_compared", "as given"}, {"failed", paper_error}};
    }
    std::cout << j.dump(2) << "\n";
  } else {
    if (a.run > 0) std::cout << fmt::format("small runs: run {} of each size\n", a.run);
    std::vector<std::string> spread_text;
    for (double s : spreads) spread_text.push_back(fmt::format("{:.1f}%", 100 * s));
    std::cout << fmt::format("spread of the repeated runs per small size: {} (median {:.1f}%{})\n",
                             fmt::join(spread_text, ", "), 100 * f.spread,
                             a.choice == "best-score" ? "; --choice best-score: the smallest score always wins"
                                                      : ": scores closer than this are not told apart");
    if (a.size_dim > 0)
      std::cout << fmt::format("sizes compared in points (--size-dim {}): a size n of the application counts n^{}, a "
                               "kernel's size K counts K^d (d after its name); avSF and SF_size in points, K_size "
                               "in the kernel's unit\n",
                               a.size_dim, a.size_dim);
    for (const phase::PhaseForecast& p : f.phases) {
      std::cout << fmt::format("phase {} (small sizes {}):\n", p.name, fmt::join(log.used, ", "));
      // K_size: the kernel size the target maps to (S / avSF); past the kernel's measured range (its largest
      // size, one end segment on) the kernel is refused
      std::cout << fmt::format("  {:<12} {:>7} {:>7} {:>7} {:>7} {:>9} {:>9} {:>7} {:>9}\n", "kernel", "AbsAM", "RMSE",
                               "StdDev", "sFCV", "avSF", "SF_size", "PredDev", "K_size");
      for (std::size_t i = 0; i < p.candidates.size(); ++i) {
        const phase::MatchStats& c = p.candidates[i];
        std::cout << fmt::format("  {:<12} {:7.3f} {:7.3f} {:7.3f} {:7.3f} {:9.4g} {:9.4g} {:7.3f} {:9.4g}{}{}\n",
                                 a.size_dim > 0 ? fmt::format("{} d={}", c.kernel, c.dims.kernel) : c.kernel, c.abs_am, c.rmse, c.std_dev, c.sf_cv, c.av_sf, c.sf_at_target, c.pred_dev,
                                 c.kernel_size,
                                 c.in_range ? "" : fmt::format("  beyond range (supported to {:.4g})", c.supported_max),
                                 static_cast<int>(i) == p.selection.chosen ? "  <- chosen" : "");
      }
      std::cout << fmt::format("  cascade: {}\n", p.selection.reason);
      std::cout << fmt::format("  own fit {}: {}; the forms within it give {:.4g} to {:.4g} s at {:g} (the "
                               "phase's own spread {:.1f}%)\n",
                               p.own_fit.describe(), p.own_fit_why, p.own_fit_low_s, p.own_fit_high_s, f.size,
                               100 * p.spread);
      std::cout << fmt::format("  predicted {:.4g} s ({}); share {:.1f}%; {}\n", p.predicted_s, p.method,
                               100 * p.share, p.why);
      if (measured) {
        const double m = measured->phase_s.at(p.name);
        std::cout << fmt::format("  measured {:.4g} s, share {:.1f}%: error {:+.1f}%\n", m,
                                 measured->total_s > 0 ? 100 * m / measured->total_s : 0.0,
                                 m > 0 ? 100 * (p.predicted_s - m) / m : 0.0);
      }
    }
    std::cout << fmt::format("predicted run at size {:g}: {:.4g} s per rank\n  from the phases by {}\n", f.size,
                             f.predicted_s, f.total.why);
    if (measured)
      for (const phase::TotalCandidate& c : f.total.candidates)
        if (c.total_s > 0 && measured->total_s > 0)
          std::cout << fmt::format("  {:<14} {:.4g} s: error {:+.1f}%\n", c.rule, c.total_s,
                                   100 * (c.total_s - measured->total_s) / measured->total_s);
    if (measured)
      std::cout << fmt::format("measured run at size {:g}: {:.4g} s per rank: error {:+.1f}%\n", f.size,
                               measured->total_s,
                               measured->total_s > 0 ? 100 * (f.predicted_s - measured->total_s) / measured->total_s : 0.0);
    if (paper) {
      const auto error_text = [&](double predicted, double m) {
        return measured && m > 0 ? fmt::format(": error {:+.1f}%", 100 * (predicted - m) / m) : std::string();
      };
      std::cout << fmt::format("paper's eq. 1 on the sizes as given, for comparison: run {:.4g} s ({}){}\n",
                               paper->predicted_s, total_rule(paper->total),
                               error_text(paper->predicted_s, measured ? measured->total_s : 0));
      for (const phase::PhaseForecast& p : paper->phases)
        std::cout << fmt::format("  phase {}: {:.4g} s ({}){}\n", p.name, p.predicted_s,
                                 p.method == "kernel" ? "kernel " + p.candidates[p.selection.chosen].kernel
                                 : p.method == "combined" ? "mean of kernel " + p.candidates[p.selection.chosen].kernel + " and own fit"
                                 : p.method == "remainder-share" ? "with the time outside the phases"
                                 : p.selection.chosen >= 0
                                     ? "own fit; kernel " + p.candidates[p.selection.chosen].kernel + " validated worse"
                                     : "own fit; no kernel matches",
                                 error_text(p.predicted_s, measured ? measured->phase_s.at(p.name) : 0));
    } else if (!paper_error.empty()) {
      std::cout << fmt::format("paper's eq. 1 on the sizes as given: no prediction ({})\n", paper_error);
    }
    print_warnings(f.warnings);
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
