// perfcast phases predict as a library call (SeriesPrediction.hpp).
#include "phase/SeriesPrediction.hpp"

#include "core/Error.hpp"
#include "phase/KernelDatabase.hpp"
#include "phase/PhaseFinder.hpp"
#include "report/PlotSvg.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace perfcast::phase {
namespace {


// Every repeat of a size, the run's seconds and each phase's (for their medians over the repeats).
std::vector<RepeatTimes> repeat_times(const std::string& dir, const SizeRecord& record,
                                             const std::vector<std::string>& phases) {
  std::vector<RepeatTimes> repeats;
  for (std::size_t k = 1; k <= record.runs.size(); ++k) {
    const MergedProfile one = load_size_profile(dir, pick_run(record, static_cast<int>(k)));
    RepeatTimes t{one.seconds(), {}};
    for (const std::string& p : phases) t.phase_seconds[p] = one.inclusive_seconds(p);
    repeats.push_back(std::move(t));
  }
  return repeats;
}

/// The rule that carried the phases to the run, or the rules averaged.
std::string total_rule(const TotalForecast& t) {
  if (t.averaged.size() <= 1) return t.candidates[t.chosen].rule;
  std::vector<std::string> names;
  for (int i : t.averaged) names.push_back(t.candidates[i].rule);
  return fmt::format("mean of {}", fmt::join(names, ", "));
}

/// Relative error of a prediction, or null when nothing was measured.
nlohmann::json relative_error(double predicted, double measured) {
  return measured > 0 ? nlohmann::json((predicted - measured) / measured) : nlohmann::json(nullptr);
}

std::string predicted_how(const PhaseForecast& p) {
  const std::string kernel = p.selection.chosen >= 0 ? p.candidates[p.selection.chosen].kernel : "";
  if (p.method == "kernel") return "kernel " + kernel + (p.validated ? "" : ", not validated");
  if (p.method == "combined") return "kernel " + kernel + " and own fit";
  if (p.method == "remainder-share") return "with the time outside the phases";
  if (p.method == "trend") return "measured trend, not validated";
  return "own fit";
}

// Measured points are filled circles (squares for the run), predictions dashed
// lines from the largest measured size ending in an open diamond, with the
// phase's band where it has one, and the run measured at the target a cross.
std::string forecast_svg(const PhaseRunLog& log, const std::vector<SizeRun>& runs, const RunForecast& f,
                         const std::string& dir, const std::optional<MeasuredTarget>& at_target) {
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};
  std::vector<PlotSeries> series;
  PlotSeries total{"run, measured", "#333333", {}, true};
  total.marker = Marker::square;
  for (const SizeRun& r : runs) total.points.push_back({r.size, r.total_seconds});
  series.push_back(total);
  PlotSeries run_predicted{"run, predicted", "#333333", {{runs.back().size, runs.back().total_seconds}, {f.size, f.predicted_s}},
                           false};
  run_predicted.marker = Marker::diamond;
  run_predicted.dashed = run_predicted.end_marker = true;
  series.push_back(run_predicted);
  if (at_target && at_target->total_s > 0) {
    PlotSeries m{"run, measured at the target", "#333333", {{f.size, at_target->total_s}}, true};
    m.marker = Marker::cross;
    series.push_back(m);
  }
  for (std::size_t i = 0; i < f.phases.size(); ++i) {
    const PhaseForecast& p = f.phases[i];
    const char* colour = colours[i % 5];
    PlotSeries measured{p.name + ", measured", colour, {}, true};
    for (const SizeRun& r : runs) measured.points.push_back({r.size, r.phase_seconds.at(p.name)});
    series.push_back(measured);
    const double last = runs.back().phase_seconds.at(p.name);
    PlotSeries predicted{fmt::format("{}, predicted ({})", p.name, predicted_how(p)), colour,
                         {{runs.back().size, last}, {f.size, p.predicted_s}}, false};
    predicted.marker = Marker::diamond;
    predicted.dashed = predicted.end_marker = true;
    if (p.high_s > p.low_s) predicted.band = {{runs.back().size, last, last}, {f.size, p.low_s, p.high_s}};
    series.push_back(predicted);
    if (at_target)
      if (const auto it = at_target->phase_s.find(p.name); it != at_target->phase_s.end() && it->second > 0) {
        PlotSeries m{p.name + ", measured at the target", colour, {{f.size, it->second}}, true};
        m.marker = Marker::cross;
        series.push_back(m);
      }
  }
  LineChart chart;
  chart.title = fmt::format("Phases measured at sizes {:g} to {:g}, predicted at {:g}", runs.front().size,
                            runs.back().size, f.size);
  chart.subtitle = fmt::format("{} (converged at {:g})", dir, log.converged_at);
  chart.x_label = "input size";
  chart.y_label = "seconds per rank";
  for (const PhaseForecast& p : f.phases)
    if (!p.validated)
      chart.notes.push_back(fmt::format("{}: not validated; shaded: {:.4g} to {:.4g} s at {:g}", p.name, p.low_s,
                                        p.high_s, f.size));
  return line_chart_svg(chart, series);
}

} // namespace

MeasuredTarget load_measured_target(const std::string& dir, double size, const std::vector<std::string>& phases) {
  const PhaseRunLog log = read_phase_runs(dir);
  for (const SizeRecord& r : log.sizes)
    if (r.size == size && r.status == 0) {
      const MergedProfile m = load_size_profile(dir, r);
      MeasuredTarget out{m.seconds(), {}};
      for (const std::string& p : phases) out.phase_s[p] = m.inclusive_seconds(p);
      if (r.runs.size() < 2) return out;
      // Each phase at its own median over the repeats, as the small sizes
      // (the median run by total need not hold the phase's median); the run
      // stays the median run by total.
      out.phase_s = size_run_from_repeats(size, repeat_times(dir, r, phases), phases).phase_seconds;
      return out;
    }
  throw Error(fmt::format("{}/phases.json: no run at size {:g} (expected perfcast phases measure -o {} --size {:g})",
                          dir, size, dir, size));
}

SeriesPrediction predict_series(const SeriesPredictionOptions& a) {
  SeriesPrediction res;
  res.options = a;
  if (!(a.size > 0)) throw Error(fmt::format("--size {} (expected a positive target size)", a.size));
  res.log = read_phase_runs(a.dir);
  const PhaseRunLog& log = res.log;
  if (log.used.size() < 3)
    throw Error(fmt::format("{}/phases.json: {} size(s) after convergence (expected at least 3: run perfcast phases "
                            "run to the end)",
                            a.dir, log.used.size()));
  const KernelDatabase db = KernelDatabase::open(a.kernels);
  std::vector<KernelModel> kernels;
  for (const std::string& name : db.kernels()) kernels.push_back(db.model(name));
  if (kernels.empty())
    throw Error(fmt::format("{}: the kernel database is empty (expected kernels measured by perfcast kernels build)",
                            a.kernels));
  PhaseRule rule;
  rule.threshold = a.threshold;
  rule.max_phases = a.max_phases;
  std::vector<SizeRun>& runs = res.runs;
  // the phases the series converged on; a series written before they were
  // kept finds them at its first used size
  std::vector<std::string> phases = log.phases;
  std::vector<double>& spreads = res.spreads; // of the repeated runs of each small size
  std::vector<std::string> unsettled;
  for (double size : log.used)
    for (const SizeRecord& r : log.sizes)
      if (r.size == size) {
        spreads.push_back(r.spread());
        if (!r.settled)
          unsettled.push_back(fmt::format("{:g} ({} runs, the tightest majority {:.1f}% apart)", size, r.runs.size(),
                                          100 * majority_spread(r.runs)));
        const MergedProfile m = load_size_profile(a.dir, a.run > 0 ? pick_run(r, a.run) : r);
        if (phases.empty()) phases = find_phases(m.names, m.stacks, rule).phases;
        SizeRun run{size, m.seconds(), {}, r.runs.size() >= 2 ? r.spread() : -1};
        run.hz = m.hz;
        for (const std::string& p : phases) run.phase_seconds[p] = m.inclusive_seconds(p);
        // within-spread: each phase stands at its own median over the size's
        // repeats with its own spread as its noise; best-score takes the
        // phase in the median run by total.
        if (a.choice != "best-score" && a.run <= 0 && r.runs.size() >= 2) {
          const SizeRun each = size_run_from_repeats(size, repeat_times(a.dir, r, phases), phases);
          run.phase_seconds = each.phase_seconds;
          run.phase_spread = each.phase_spread;
        }
        runs.push_back(run);
      }
  // Sizes in points (--size-dim): each kernel's unit from the database; the
  // paper's eq. 1 on the sizes as given is predicted beside it, for the record.
  SizeUnits units{a.size_dim, {}};
  if (a.size_dim > 0)
    for (const KernelModel& k : kernels) units.kernel_dims.push_back(db.size_unit(k.name()).dim);
  const Choice choice = a.choice == "best-score" ? Choice::best_score : Choice::within_spread;
  res.forecast = predict_run(runs, phases, kernels, a.size, {}, units, choice);
  if (a.size_dim > 0) try {
      res.paper = predict_run(runs, phases, kernels, a.size, {}, {}, choice);
    } catch (const Error& e) {
      res.paper_error = e.what();
    }
  if (!unsettled.empty())
    res.forecast.warnings.push_back(fmt::format("no majority of the runs agreed at small size(s) {} (phases run --max-repeat): "
                                     "their medians may be disturbed runs",
                                     fmt::join(unsettled, ", ")));
  if (!a.measured.empty()) res.measured = load_measured_target(a.measured, a.size, phases);
  return res;
}

nlohmann::json SeriesPrediction::to_json() const {
  const SeriesPredictionOptions& a = options;
  const RunForecast& f = forecast;
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
  for (const PhaseForecast& p : f.phases) {
    nlohmann::json cands = nlohmann::json::array();
    for (std::size_t i = 0; i < p.candidates.size(); ++i) {
      const MatchStats& c = p.candidates[i];
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
                  {"validated", p.validated}, {"band_s", {p.low_s, p.high_s}},
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
  for (const TotalCandidate& c : f.total.candidates) {
    rules.push_back({{"rule", c.rule}, {"predicted_s", c.total_s}, {"cv_smape", c.cv_smape}, {"detail", c.detail}});
    if (measured && c.total_s > 0) rules.back()["error"] = relative_error(c.total_s, measured->total_s);
  }
  nlohmann::json averaged = nlohmann::json::array();
  for (int i : f.total.averaged) averaged.push_back(f.total.candidates[i].rule);
  j["total"] = {{"rule", f.total.candidates[f.total.chosen].rule}, {"averaged", averaged}, {"why", f.total.why},
                {"rules", rules}};
  if (paper) {
    nlohmann::json pp = nlohmann::json::array();
    for (const PhaseForecast& p : paper->phases) {
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
  return j;
}

void SeriesPrediction::print_table(std::ostream& out) const {
  const SeriesPredictionOptions& a = options;
  const RunForecast& f = forecast;
  if (a.run > 0) out << fmt::format("small runs: run {} of each size\n", a.run);
  std::vector<std::string> spread_text;
  for (double s : spreads) spread_text.push_back(fmt::format("{:.1f}%", 100 * s));
  out << fmt::format("spread of the repeated runs per small size: {} (median {:.1f}%{})\n",
                           fmt::join(spread_text, ", "), 100 * f.spread,
                           a.choice == "best-score" ? "; --choice best-score: the smallest score always wins"
                                                    : ": scores closer than this are not told apart");
  if (a.size_dim > 0)
    out << fmt::format("sizes compared in points (--size-dim {}): a size n of the application counts n^{}, a "
                             "kernel's size K counts K^d (d after its name); avSF and SF_size in points, K_size "
                             "in the kernel's unit\n",
                             a.size_dim, a.size_dim);
  for (const PhaseForecast& p : f.phases) {
    out << fmt::format("phase {} (small sizes {:g}):\n", p.name, fmt::join(log.used, ", "));
    // K_size: the kernel size the target maps to (S / avSF); past the kernel's measured range (its largest
    // size, one end segment on) the kernel is refused
    out << fmt::format("  {:<12} {:>7} {:>7} {:>7} {:>7} {:>9} {:>9} {:>7} {:>9}\n", "kernel", "AbsAM", "RMSE",
                             "StdDev", "sFCV", "avSF", "SF_size", "PredDev", "K_size");
    for (std::size_t i = 0; i < p.candidates.size(); ++i) {
      const MatchStats& c = p.candidates[i];
      out << fmt::format("  {:<12} {:7.3f} {:7.3f} {:7.3f} {:7.3f} {:9.4g} {:9.4g} {:7.3f} {:9.4g}{}{}\n",
                               a.size_dim > 0 ? fmt::format("{} d={}", c.kernel, c.dims.kernel) : c.kernel, c.abs_am, c.rmse, c.std_dev, c.sf_cv, c.av_sf, c.sf_at_target, c.pred_dev,
                               c.kernel_size,
                               c.in_range ? "" : fmt::format("  beyond range (supported to {:.4g})", c.supported_max),
                               static_cast<int>(i) == p.selection.chosen ? "  <- chosen" : "");
    }
    out << fmt::format("  cascade: {}\n", p.selection.reason);
    out << fmt::format("  own fit {}: {}; the forms within it give {:.4g} to {:.4g} s at {:g} (the "
                             "phase's own spread {:.1f}%)\n",
                             p.own_fit.describe(), p.own_fit_why, p.own_fit_low_s, p.own_fit_high_s, f.size,
                             100 * p.spread);
    out << fmt::format("  predicted {:.4g} s ({}); share {:.1f}%; {}\n", p.predicted_s, p.method,
                             100 * p.share, p.why);
    if (!p.validated)
      out << fmt::format("  not validated: {:.4g} to {:.4g} s at {:g} as the small sizes' growth carries it\n", p.low_s, p.high_s, f.size);
    if (measured) {
      const double m = measured->phase_s.at(p.name);
      out << fmt::format("  measured {:.4g} s, share {:.1f}%: error {:+.1f}%\n", m,
                               measured->total_s > 0 ? 100 * m / measured->total_s : 0.0,
                               m > 0 ? 100 * (p.predicted_s - m) / m : 0.0);
    }
  }
  out << fmt::format("predicted run at size {:g}: {:.4g} s per rank\n  from the phases by {}\n", f.size,
                           f.predicted_s, f.total.why);
  if (measured)
    for (const TotalCandidate& c : f.total.candidates)
      if (c.total_s > 0 && measured->total_s > 0)
        out << fmt::format("  {:<14} {:.4g} s: error {:+.1f}%\n", c.rule, c.total_s,
                                 100 * (c.total_s - measured->total_s) / measured->total_s);
  if (measured)
    out << fmt::format("measured run at size {:g}: {:.4g} s per rank: error {:+.1f}%\n", f.size,
                             measured->total_s,
                             measured->total_s > 0 ? 100 * (f.predicted_s - measured->total_s) / measured->total_s : 0.0);
  if (paper) {
    const auto error_text = [&](double predicted, double m) {
      return measured && m > 0 ? fmt::format(": error {:+.1f}%", 100 * (predicted - m) / m) : std::string();
    };
    out << fmt::format("paper's eq. 1 on the sizes as given, for comparison: run {:.4g} s ({}){}\n",
                             paper->predicted_s, total_rule(paper->total),
                             error_text(paper->predicted_s, measured ? measured->total_s : 0));
    for (const PhaseForecast& p : paper->phases)
      out << fmt::format("  phase {}: {:.4g} s ({}){}\n", p.name, p.predicted_s,
                               p.method == "kernel" ? "kernel " + p.candidates[p.selection.chosen].kernel
                               : p.method == "combined" ? "mean of kernel " + p.candidates[p.selection.chosen].kernel + " and own fit"
                               : p.method == "remainder-share" ? "with the time outside the phases"
                               : p.method == "trend" ? "measured trend, not validated"
                               : p.selection.chosen >= 0
                                   ? "own fit; kernel " + p.candidates[p.selection.chosen].kernel + " validated worse"
                                   : "own fit; no kernel matches",
                               error_text(p.predicted_s, measured ? measured->phase_s.at(p.name) : 0));
  } else if (!paper_error.empty()) {
    out << fmt::format("paper's eq. 1 on the sizes as given: no prediction ({})\n", paper_error);
  }
}

std::string SeriesPrediction::svg() const { return forecast_svg(log, runs, forecast, options.dir, measured); }

} // namespace perfcast::phase
