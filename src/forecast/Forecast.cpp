#include "forecast/Forecast.hpp"

#include "appmodel/ModelBuild.hpp"
#include "forecast/Speeds.hpp"
#include "appmodel/ReplayPrediction.hpp"
#include "core/Error.hpp"
#include "core/Interrupt.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/Study.hpp"
#include "report/PlotSvg.hpp"
#include "report/ReplayOutput.hpp"
#include "trace/TraceDirectory.hpp"
#include "trace/TraceIndex.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace perfcast {
namespace {

std::string counts_text(const std::vector<int>& counts) { return fmt::format("{}", fmt::join(counts, ", ")); }

std::string method_title(const std::string& name)
{
  if (name == "extrapolated-replay")
    return "extrapolated replay";
  if (name == "queueing-network")
    return "queueing network";
  return "Amdahl's law";
}

struct Replayed {
  ForecastRun run;
  MeasuredRun measured;
  std::vector<double> compute_scale; ///< per rank, as the trace was read (TracedRates)
};

Replayed replay_run(const std::string& trace, const std::vector<double>& compute_scale, const Platform& platform,
                    const std::string& placement, const ReplayOptions& base)
{
  TraceIndex index = read_trace_index(trace_index_for(trace));
  index.compute_scale = compute_scale;
  ReplayOptions options = base;
  options.record_timeline = false;
  ReplayReport report =
      replay_trace(index, platform, placement_for(platform, placement, index.world_size), options);
  Replayed r;
  r.compute_scale = compute_scale;
  r.run = {trace, index.world_size, report.makespan_s};
  r.measured = run_from_replay_json(replay_to_json(report, platform), trace);
  return r;
}

/// What a method learns from a set of runs: its predictions at some counts, with the extrapolated replay's band
/// and warnings.
struct Learned {
  std::vector<double> predicted_s;
  std::vector<std::pair<double, double>> band_s;
  std::vector<std::vector<std::string>> warnings;
  std::vector<std::string> notes;
};

/// `held_out`: the extrapolated replay learns its structure from every run and its laws without those counts (the
/// other methods are given the runs without them)
Learned learn(const std::string& method, const std::vector<const Replayed*>& runs, const std::vector<int>& procs,
              const Platform& platform, const ForecastOptions& options, const std::vector<int>& held_out = {})
{
  Learned out;
  if (method == "extrapolated-replay") {
    std::vector<std::string> traces;
    ModelBuildOptions build;
    for (const Replayed* r : runs) {
      traces.push_back(r->run.trace);
      if (!r->compute_scale.empty())
        build.compute_scale[r->run.trace] = r->compute_scale;
    }
    build.law_held_out = held_out;
    AppModel model = build_app_model(traces, build);
    int left = 0;
    for (int n : model.training_procs)
      left += std::find(held_out.begin(), held_out.end(), n) == held_out.end();
    // a law chooses its form by forward validation, among the one-parameter forms with two counts
    if (left < 2)
      throw Error(fmt::format("fewer than two of the model's counts ({}) are left to learn its laws on",
                              counts_text(model.training_procs)));
    ReplayOptions quiet = options.replay;
    quiet.progress = {};
    quiet.record_timeline = false;
    ReplayPredictions p = predict_by_replay(model, procs, platform, options.placement, quiet);
    for (const ReplayPrediction& row : p.rows) {
      out.predicted_s.push_back(row.predicted_s);
      out.band_s.emplace_back(row.low_s, row.high_s);
      out.warnings.push_back(row.warnings);
    }
    out.notes = p.notes;
    return out;
  }
  std::vector<MeasuredRun> measured;
  for (const Replayed* r : runs)
    measured.push_back(r->measured);
  if (method == "queueing-network") {
    QueueingModel model = fit_queueing_model(measured, platform);
    for (int n : procs) {
      HostCounts where = place_processes(platform, options.placement, n);
      double t = predict_run_time(model, platform, where).time_s;
      out.predicted_s.push_back(t);
      // its own band, as the extrapolated replay's laws give theirs: what the fit leaves uncertain at this count
      BandTerms terms = model_band_terms(model, platform, where);
      double b = std::max({terms.network, terms.held, terms.wrap}) + terms.unseen;
      out.band_s.emplace_back(t / (1 + b), t * (1 + b));
      std::vector<std::string> w;
      if (b > kWideBand) {
        std::string why = terms.unseen > 0 && terms.unseen >= std::max({terms.network, terms.held, terms.wrap})
                              ? fmt::format("{:.0f}% of the traffic is in grid classes the runs never had",
                                            100 * terms.unseen)
                          : terms.network >= std::max(terms.held, terms.wrap)
                              ? fmt::format("the network is {:.0f}% of the time and Net_Constant is uncertain by "
                                            "{:.0f}%",
                                            100 * terms.network_share, 100 * terms.net_constant_uncertainty)
                          : terms.held >= terms.wrap
                              ? std::string("an input fitted through runs that go up and down moves it that much when "
                                            "held at its last value")
                              : fmt::format("the runs cannot tell whether the grid wraps, and the periodic reading "
                                            "predicts {:.6g} s",
                                            terms.if_periodic_s);
        w.push_back(fmt::format("the queueing model's fit leaves this prediction uncertain by {:.0f}%: {}", 100 * b,
                                why));
      }
      out.warnings.push_back(std::move(w));
    }
    out.notes = model.warnings;
    return out;
  } else {
    AmdahlModel amdahl = fit_amdahl(measured);
    for (int n : procs)
      if (!(amdahl.predict(n) > 0))
        throw Error(fmt::format("its fit to the runs (a serial part of {:.3g} s) gives no time at {} processes: the "
                                "runs speed up faster than the processes grow, which Amdahl's law cannot describe",
                                amdahl.serial_s, n));
    for (int n : procs)
      out.predicted_s.push_back(amdahl.predict(n));
  }
  out.warnings.resize(procs.size());
  return out;
}

/// The rows' warnings, each once, with the counts it was given at, in the order they first appear.
std::vector<std::string> grouped_warnings(const std::vector<ForecastRow>& rows)
{
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const ForecastRow& r : rows)
    for (const std::string& w : r.warnings) {
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == w; });
      if (it == groups.end())
        groups.push_back({w, {r.procs}});
      else
        it->second.push_back(r.procs);
    }
  std::vector<std::string> out;
  for (const auto& [w, counts] : groups)
    out.push_back(fmt::format("{} process{}: {}", counts_text(counts), counts == std::vector<int>{1} ? "" : "es", w));
  return out;
}

} // namespace

std::pair<double, double> validated_band(double t, double rate, int largest, int n)
{
  if (!(t > 0))
    return {0, 0};
  double d = n > largest ? std::log2(static_cast<double>(n) / largest) : 0;
  double f = std::pow(1 + std::max(0.0, rate), d);
  return {t / f, t * f};
}

bool gives_times(const ForecastMethod& m)
{
  return m.applicable && std::all_of(m.predicted_s.begin(), m.predicted_s.end(), [](double t) { return t > 0; });
}

std::vector<ForecastRow> answer_rows(const std::vector<ForecastMethod>& methods, std::size_t answer, int largest,
                                     const std::vector<int>& procs)
{
  const ForecastMethod* best = &methods.at(answer);
  std::vector<ForecastRow> rows;
  for (std::size_t i = 0; i < procs.size(); ++i) {
    ForecastRow row;
    row.procs = procs[i];
    row.method = best->name;
    row.predicted_s = best->predicted_s[i];
    auto [lo, hi] = validated_band(row.predicted_s, best->validated ? kBandScale * best->rate : 0, largest, row.procs);
    if (!best->band_s.empty()) {
      lo = std::min(lo, best->band_s[i].first);
      hi = std::max(hi, best->band_s[i].second);
    }
    if (!best->warnings.empty())
      row.warnings = best->warnings[i];
    // the answer is preferred for what it models, not for its validation: a method validated better that predicts
    // outside the band cannot be ruled out by the runs, so the band reaches its prediction, and says so
    if (best->validated)
      for (const ForecastMethod& m : methods) {
        if (&m == best || !m.validated || !gives_times(m) || m.rate >= best->rate)
          continue;
        double t = m.predicted_s[i];
        if (t >= lo && t <= hi)
          continue;
        row.warnings.push_back(fmt::format("{}, validated better ({:.1f}% per doubling), predicts {:.6g} s ({:+.0f}%): "
                                           "the band reaches it",
                                           method_title(m.name), 100 * m.rate, t,
                                           100 * (t - row.predicted_s) / row.predicted_s));
        lo = std::min(lo, t);
        hi = std::max(hi, t);
      }
    row.low_s = std::max(0.0, lo);
    row.high_s = hi;
    if (!best->validated)
      row.warnings.push_back("not validated (" + best->validation_note + "): the band holds only the model's own spread");
    else if (best->rate > kForecastTrustedError)
      row.warnings.push_back(fmt::format("validated on the runs: off by up to {:.0f}% per doubling of the processes, "
                                         "so this prediction may be off by as much for every doubling past {}",
                                         100 * best->rate, largest));
    rows.push_back(std::move(row));
  }
  return rows;
}

Forecast forecast(const std::vector<std::string>& traces, const Platform& platform_in,
                  const std::string& platform_name, const ForecastOptions& options)
{
  auto say = [&](const std::string& line) {
    if (options.progress)
      options.progress(line);
  };
  if (traces.size() < 2)
    throw Error("forecast: give the program's runs at two or more process counts (traces or perfcast trace "
                "directories); " + std::to_string(traces.size()) + " given");
  if (options.procs.empty())
    throw Error("forecast: no target process count (--procs)");
  Forecast f;
  f.platform = platform_name;
  f.placement = options.placement;
  // every run, checks included, was traced on one machine: its computation is carried at one rate per traced host
  std::vector<std::string> every = traces;
  every.insert(every.end(), options.checks.begin(), options.checks.end());
  TracedRates rates = traced_rates(every, options.traced_speed);
  for (std::size_t i = 1; i < every.size(); ++i)
    if (!rates.program[i].empty() && !rates.program[0].empty() && rates.program[i] != rates.program[0])
      throw Error(fmt::format("{} and {}: runs of different programs ({} and {}); a forecast learns one program "
                              "from its runs at several counts",
                              every[0], every[i], rates.program[0], rates.program[i]));
  TargetSpeeds target = apply_speeds(platform_in, options.speeds, rates);
  const Platform& platform = target.platform;
  f.speeds = target.report;
  f.speed_uncertainty = target.uncertainty;
  f.notes = target.notes;
  std::vector<Replayed> runs;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    throw_if_interrupted();
    say(fmt::format("replaying {} on the target", traces[i]));
    runs.push_back(replay_run(traces[i], rates.compute_scale[i], platform, options.placement, options.replay));
  }
  std::stable_sort(runs.begin(), runs.end(), [](const Replayed& a, const Replayed& b) { return a.run.procs < b.run.procs; });
  for (std::size_t i = 1; i < runs.size(); ++i)
    if (runs[i].run.procs == runs[i - 1].run.procs)
      throw Error(fmt::format("{} and {}: two runs at {} processes; give one run per count", runs[i - 1].run.trace,
                              runs[i].run.trace, runs[i].run.procs));
  std::vector<int> counts;
  for (const Replayed& r : runs) {
    f.runs.push_back(r.run);
    counts.push_back(r.run.procs);
  }
  int largest = counts.back();
  for (int n : options.procs)
    if (n < largest)
      throw Error(fmt::format("--procs {}: below the largest run ({} processes, {}); a forecast goes to larger counts",
                              n, largest, runs.back().run.trace));

  std::vector<const Replayed*> all;
  for (const Replayed& r : runs)
    all.push_back(&r);

  for (std::string name : {"extrapolated-replay", "queueing-network", "amdahl"}) {
    throw_if_interrupted();
    ForecastMethod m;
    m.name = name;
    say(fmt::format("learning the {} on {} processes", method_title(name), counts_text(counts)));
    try {
      Learned l = learn(name, all, options.procs, platform, options);
      m.applicable = true;
      m.predicted_s = l.predicted_s;
      m.band_s = l.band_s;
      m.warnings = l.warnings;
      if (name == "extrapolated-replay")
        f.notes.insert(f.notes.end(), l.notes.begin(), l.notes.end());
    } catch (const Error& e) {
      m.why_not = e.what();
    }
    // forward validations: learned on each prefix of the counts that holds as many counts as the method needs,
    // predicting every larger run: Amdahl's law two (two parameters), the queueing network and the application
    // model's laws three (each chooses its form among several by forward validation). The application model's
    // structure is checked on every run (it must give back their traces), so what it extrapolates, its laws, is
    // what leaves the larger runs' observations out
    bool laws_only = std::string(name) == "extrapolated-replay";
    std::size_t needs = std::string(name) == "amdahl" ? 2 : 3;
    for (std::size_t j = runs.size() - 1; m.applicable && j >= needs; --j) {
      throw_if_interrupted();
      std::vector<const Replayed*> prefix(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(j));
      std::vector<int> learned_on(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(j));
      std::vector<int> targets(counts.begin() + static_cast<std::ptrdiff_t>(j), counts.end());
      say(fmt::format("validating the {}: learned on {}, predicting {}", method_title(name), counts_text(learned_on),
                      counts_text(targets)));
      try {
        Learned v = laws_only ? learn(name, all, targets, platform, options, targets)
                              : learn(name, prefix, targets, platform, options);
        for (std::size_t i = 0; i < targets.size(); ++i) {
          const ForecastRun& truth = runs[j + i].run;
          ValidationCheck c{learned_on, truth.procs, v.predicted_s[i], truth.replay_s, 0, 0};
          c.error = c.predicted_s > 0 ? std::abs(c.predicted_s - c.truth_s) / c.truth_s : 1;
          c.rate = std::pow(1 + c.error, 1 / std::log2(static_cast<double>(truth.procs) / learned_on.back())) - 1;
          m.checks.push_back(c);
          m.rate = std::max(m.rate, c.rate);
          if (j == runs.size() - 1) {
            m.validated = c.predicted_s > 0;
            m.validation_procs = c.procs;
            m.validation_predicted_s = c.predicted_s;
            m.validation_error = c.error;
            m.validation_note = !m.validated ? "no time at " + std::to_string(c.procs) + " processes"
                                : laws_only  ? "laws learned on " + counts_text(learned_on) +
                                                  " processes, the structure on every run"
                                             : "learned on " + counts_text(learned_on) + " processes";
          }
        }
      } catch (const Error& e) {
        if (j == runs.size() - 1)
          m.validation_note = std::string("learning without the largest run failed: ") + e.what();
      }
    }
    if (m.applicable && runs.size() <= needs)
      m.validation_note = fmt::format("runs at {} counts: none is left to validate on when it learns on the {} it "
                                      "needs",
                                      runs.size(), needs);
    if (!m.validated)
      m.rate = 0;
    f.methods.push_back(std::move(m));
  }

  // the answer: methods in the order of what they model (the program's own messages replayed on the target; the
  // contention of its traffic; a serial and a parallel share): the first whose validation passes
  // kForecastTrustedError per doubling answers, since a few held-out runs cannot rank errors below that, and a model
  // of more of the program extrapolates further; when none passes, the best validated; with none validated, the
  // first that applies
  const ForecastMethod* best = nullptr;
  bool passed = false;
  for (const ForecastMethod& m : f.methods)
    if (m.validated && gives_times(m) && m.rate <= kForecastTrustedError) {
      best = &m;
      passed = true;
      break;
    }
  if (!best)
    for (const ForecastMethod& m : f.methods)
      if (m.validated && gives_times(m) && (!best || m.rate < best->rate))
        best = &m;
  if (!best)
    for (const ForecastMethod& m : f.methods)
      if (gives_times(m)) {
        best = &m;
        break;
      }
  if (!best) {
    std::string why;
    for (const ForecastMethod& m : f.methods)
      why += fmt::format("\n  {}: {}", method_title(m.name), m.applicable ? "no time at some target count" : m.why_not);
    throw Error("forecast: no method could be learned from these runs:" + why);
  }
  f.recommended = best->name;
  std::vector<std::string> others;
  for (const ForecastMethod& m : f.methods)
    if (&m != best)
      others.push_back(m.validated    ? fmt::format("{} {:.1f}%", method_title(m.name), 100 * m.rate)
                       : m.applicable ? fmt::format("{} not validated", method_title(m.name))
                                      : fmt::format("{} not applicable", method_title(m.name)));
  if (best->validated)
    f.why = fmt::format("{}, off by at most {:.1f}% per doubling of the processes in {} forward validation{} ({}: "
                        "{:.1f}% at {}): {} ({})",
                        method_title(best->name), 100 * best->rate, best->checks.size(),
                        best->checks.size() == 1 ? "" : "s", best->validation_note, 100 * best->validation_error,
                        best->validation_procs,
                        passed ? fmt::format("the first of the methods, by what they model, within {:.0f}%",
                                             100 * kForecastTrustedError)
                               : fmt::format("none is within {:.0f}%, this one is the closest",
                                             100 * kForecastTrustedError),
                        fmt::join(others, ", "));
  else
    f.why = fmt::format("{}: {}; no method is validated", method_title(best->name), best->validation_note);

  f.rows = answer_rows(f.methods, static_cast<std::size_t>(best - f.methods.data()), largest, options.procs);
  // the speeds' conversion is uncertain by the same fraction at every count
  if (f.speed_uncertainty > 0)
    for (ForecastRow& r : f.rows) {
      r.low_s /= 1 + f.speed_uncertainty;
      r.high_s *= 1 + f.speed_uncertainty;
    }

  for (std::size_t k = 0; k < options.checks.size(); ++k) {
    const std::string& t = options.checks[k];
    throw_if_interrupted();
    say(fmt::format("replaying the check {} on the target", t));
    Replayed c = replay_run(t, rates.compute_scale[traces.size() + k], platform, options.placement, options.replay);
    auto it = std::find_if(f.rows.begin(), f.rows.end(), [&](const ForecastRow& r) { return r.procs == c.run.procs; });
    if (it == f.rows.end())
      throw Error(fmt::format("{}: a run at {} processes, not among the target counts ({})", t, c.run.procs,
                              counts_text(options.procs)));
    it->check_s = c.run.replay_s;
  }
  return f;
}

nlohmann::json Forecast::to_json() const
{
  nlohmann::json preds = nlohmann::json::array();
  for (const ForecastRow& r : rows) {
    nlohmann::json j = {{"procs", r.procs},     {"predicted_s", r.predicted_s}, {"band_s", {r.low_s, r.high_s}},
                        {"method", r.method},   {"warnings", r.warnings}};
    if (r.check_s) {
      j["check_s"] = *r.check_s;
      j["check_error"] = std::abs(r.predicted_s - *r.check_s) / *r.check_s;
    }
    preds.push_back(j);
  }
  nlohmann::json ms = nlohmann::json::array();
  for (const ForecastMethod& m : methods) {
    nlohmann::json j = {{"method", m.name}, {"applicable", m.applicable}, {"validated", m.validated}};
    if (!m.applicable)
      j["why_not"] = m.why_not;
    else
      j["predicted_s"] = m.predicted_s;
    if (m.validated) {
      nlohmann::json checks = nlohmann::json::array();
      for (const ValidationCheck& c : m.checks)
        checks.push_back({{"learned_on", c.learned_on}, {"procs", c.procs}, {"predicted_s", c.predicted_s},
                          {"truth_s", c.truth_s}, {"error", c.error}, {"rate_per_doubling", c.rate}});
      j["validation"] = {{"procs", m.validation_procs},       {"predicted_s", m.validation_predicted_s},
                         {"error", m.validation_error},       {"note", m.validation_note},
                         {"rate_per_doubling", m.rate},       {"checks", checks}};
    } else if (m.applicable) {
      j["validation"] = {{"note", m.validation_note}};
    }
    ms.push_back(j);
  }
  nlohmann::json rs = nlohmann::json::array();
  for (const ForecastRun& r : runs)
    rs.push_back({{"trace", r.trace}, {"procs", r.procs}, {"replay_s", r.replay_s}});
  return {{"platform", platform}, {"placement", placement}, {"predictions", preds}, {"recommended", recommended},
          {"why", why},           {"methods", ms},           {"runs", rs},          {"speeds", speeds},
          {"notes", notes}};
}

std::string Forecast::text() const
{
  std::vector<int> counts;
  for (const ForecastRun& r : runs)
    counts.push_back(r.procs);
  std::string out = fmt::format("forecast on {} ({} placement) from runs at {} processes\n", platform, placement,
                                counts_text(counts));
  out += fmt::format("answer: {}\n\n", why);
  bool checked = std::any_of(rows.begin(), rows.end(), [](const ForecastRow& r) { return r.check_s.has_value(); });
  out += fmt::format("{:>7} {:>12} {:>27}  {:<20}{}\n", "procs", "predicted_s", "band_s", "method",
                     checked ? "     check_s  error" : "");
  for (const ForecastRow& r : rows) {
    out += fmt::format("{:>7} {:>12.6g} {:>27}  {:<20}", r.procs, r.predicted_s,
                       fmt::format("[{:.6g}, {:.6g}]", r.low_s, r.high_s), r.method);
    if (r.check_s)
      out += fmt::format("{:>12.6g} {:>5.1f}%", *r.check_s, 100 * std::abs(r.predicted_s - *r.check_s) / *r.check_s);
    out += "\n";
  }
  out += "\nmethods (validated forward: learned on the smaller runs, predicting the larger; error: at the largest run; "
         "/doubling: the worst error per doubling of the processes)\n";
  out += fmt::format("  {:<20} {:>10} {:>8} {:>10}", "method", "validated", "error", "/doubling");
  for (const ForecastRow& r : rows)
    out += fmt::format(" {:>11}", fmt::format("{} procs", r.procs));
  out += "\n";
  for (const ForecastMethod& m : methods) {
    out += fmt::format("  {:<20} {:>10} {:>8} {:>10}", m.name,
                       m.validated ? fmt::format("at {}", m.validation_procs) : "no",
                       m.validated ? fmt::format("{:.1f}%", 100 * m.validation_error) : "-",
                       m.validated ? fmt::format("{:.1f}%", 100 * m.rate) : "-");
    if (!m.applicable) {
      out += "  not applicable: " + m.why_not.substr(0, m.why_not.find('\n')) + "\n";
      continue;
    }
    for (double t : m.predicted_s)
      out += fmt::format(" {:>11}", t > 0 ? fmt::format("{:.5g}", t) : "n/a");
    out += "\n";
    if (!m.validated)
      out += "  " + std::string(20, ' ') + "  (" + m.validation_note + ")\n";
  }
  for (const std::string& n : notes)
    out += "note: " + n + "\n";
  return out;
}

std::vector<std::string> Forecast::warnings() const { return grouped_warnings(rows); }

std::string Forecast::svg() const
{
  static const std::map<std::string, std::string> colours = {
      {"extrapolated-replay", "#4c78a8"}, {"queueing-network", "#54a24b"}, {"amdahl", "#f58518"}};
  LineChart chart;
  chart.title = "forecast: " + method_title(recommended);
  chart.subtitle = fmt::format("{} ({} placement); band: the answer's", platform, placement);
  chart.x_label = "processes";
  chart.y_label = "run time (s)";
  chart.log2_x = true;
  std::vector<PlotSeries> series;
  PlotSeries traced{"runs (replayed on the target)", "#222", {}, true};
  for (const ForecastRun& r : runs) {
    traced.points.emplace_back(r.procs, r.replay_s);
    chart.x_ticks.push_back(r.procs);
  }
  for (const ForecastMethod& m : methods) {
    if (!m.applicable)
      continue;
    PlotSeries s{method_title(m.name) + (m.name == recommended ? " (answer)" : ""), colours.at(m.name), {}, false};
    // each curve starts at the largest run, the point every method extrapolates from
    s.points.emplace_back(runs.back().procs, runs.back().replay_s);
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (m.predicted_s[i] > 0)
        s.points.emplace_back(rows[i].procs, m.predicted_s[i]);
    if (m.name == recommended) {
      s.band.push_back({static_cast<double>(runs.back().procs), runs.back().replay_s, runs.back().replay_s});
      for (const ForecastRow& r : rows)
        s.band.push_back({static_cast<double>(r.procs), r.low_s, r.high_s});
    }
    series.push_back(std::move(s));
  }
  PlotSeries checks{"check runs (replayed)", "#d62728", {}, true};
  for (const ForecastRow& r : rows) {
    chart.x_ticks.push_back(r.procs);
    if (r.check_s)
      checks.points.emplace_back(r.procs, *r.check_s);
  }
  series.push_back(traced);
  if (!checks.points.empty())
    series.push_back(checks);
  for (const std::string& w : grouped_warnings(rows))
    chart.notes.push_back("warning: " + w);
  for (const ForecastMethod& m : methods)
    if (!m.applicable)
      chart.notes.push_back(fmt::format("{}: not applicable: {}", method_title(m.name),
                                        m.why_not.substr(0, m.why_not.find('\n'))));
  return line_chart_svg(chart, series);
}

} // namespace perfcast
