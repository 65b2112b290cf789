#include "qn/QueueingPredictions.hpp"

#include "report/PlotSvg.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace perfcast {
namespace {

// Amdahl's law's time as printed: a fit outside the law (s < 0, faster than linear) falls to zero or below past
// some count, and that is no time
std::string law_cell(double t) { return t > 0 ? fmt::format("{:.6g}", t) : "n/a"; }
nlohmann::json law_time(double t) { return t > 0 ? nlohmann::json(t) : nlohmann::json(nullptr); }

} // namespace

nlohmann::json model_inputs_at(const QueueingModel& model, int n)
{
  double s = cycles_at(model, n);
  auto [latency, per_byte] = smpi_factors_at(model, n);
  return {{"messages_per_process", s}, {"run_bytes", n * s * message_bytes_at(model, n)},
          {"busiest_receive_share", hot_receive_share_at(model, n)},
          {"latency_factor", latency}, {"per_byte_factor", per_byte}};
}

QueueingPredictions predict_queueing(const QueueingModel& model, const AmdahlModel& amdahl, const Platform& platform,
                                     const std::vector<int>& procs, const QueueingPredictionOptions& options)
{
  QueueingPredictions out;
  out.model_warnings = model.warnings;
  out.reliability = model.reliability;
  out.threshold = options.threshold;
  out.measured = options.measured;
  out.placement = options.placement;
  out.model_name = options.model_name;
  out.platform_name = options.platform_name;
  out.warnings = model.warnings;
  const Reliability& rel = model.reliability;
  if (!rel.warning.empty())
    out.warnings.push_back(rel.warning);
  // Amdahl's law when the held-out checks clearly favour it (assess_reliability); the recommended model's held-out
  // error is the band
  out.use_amdahl = rel.recommend_amdahl;
  std::vector<SweepPoint> points = sweep(model, amdahl, platform, options.placement, procs);
  // the band widens with the distance past the runs (prediction_band), and carries Net_Constant's leverage and the
  // inputs fitted through noise (model_band_terms) at the sweep's placements; past kWarnedBand, or when the two
  // models disagree by more, the prediction itself is called a guess
  std::vector<std::string> guesses;
  for (const SweepPoint& p : points) {
    int n = p.queueing.procs;
    QueueingPredictionRow row;
    row.point = p;
    row.recommended_s = out.use_amdahl ? p.amdahl_s : p.queueing.time_s;
    BandTerms terms = out.use_amdahl ? BandTerms{}
                                     : model_band_terms(model, platform, place_processes(platform, options.placement, n));
    row.band = prediction_band(rel, terms, out.use_amdahl, n);
    if (!terms.unseen_classes.empty()) {
      row.unseen_classes = terms.unseen_classes;
      std::string names;
      for (const std::string& u : terms.unseen_classes)
        names += (names.empty() ? "" : " ") + u;
      out.warnings.push_back(fmt::format("at {} processes the grid has {} offset{} the training grids never had "
                                         "({}): taken as the seen classes' median, {:.0f}% of the traffic, added to "
                                         "the band",
                                         n, terms.unseen_classes.size(), terms.unseen_classes.size() == 1 ? "" : "s",
                                         names, 100 * terms.unseen));
    }
    if (terms.wrap > kUntoldGridNote)
      row.if_periodic_s = terms.if_periodic_s;
    row.warning = prediction_warning(model, terms, out.use_amdahl, n, p.queueing.time_s, p.amdahl_s);
    if (!row.warning.empty())
      guesses.push_back(row.warning);
    row.structure = structure_at(model, n);
    row.collectives = collectives_at(model, n);
    row.inputs = model_inputs_at(model, n);
    out.counts.push_back(n);
    out.rows.push_back(std::move(row));
  }
  out.warnings.insert(out.warnings.end(), guesses.begin(), guesses.end());
  out.turning_point = turning_point(points, options.threshold);
  if (options.best_group > 0) {
    out.group_size = options.best_group;
    out.group_procs = options.group_procs > 0 ? options.group_procs : procs.back();
    out.group = best_group(model, platform, options.best_group, out.group_procs);
  }
  if (model.grid || model.halo)
    out.structure = structure_at(model, procs.back());
  if (model.collectives)
    out.collectives = collectives_at(model, procs.back());
  return out;
}

nlohmann::json QueueingPredictions::to_json() const
{
  nlohmann::json j;
  nlohmann::json rows_json = nlohmann::json::array();
  for (const QueueingPredictionRow& r : rows) {
    const SweepPoint& p = r.point;
    rows_json.push_back(
        {{"procs", p.queueing.procs},
         {"predicted_s", p.queueing.time_s},
         {"amdahl_s", law_time(p.amdahl_s)},
         {"recommended_s", law_time(r.recommended_s)},
         {"band_s", r.band >= 0 ? nlohmann::json::array({r.recommended_s * std::max(0.0, 1 - r.band),
                                                         r.recommended_s * (1 + r.band)})
                                : nlohmann::json(nullptr)},
         {"warning", r.warning},
         {"structure", r.structure},
         {"collectives", r.collectives},
         {"inputs", r.inputs},
         {"unseen_classes", r.unseen_classes},
         {"if_periodic_s", r.if_periodic_s ? nlohmann::json(*r.if_periodic_s) : nlohmann::json(nullptr)},
         {"speedup", p.speedup},
         {"bottleneck", p.queueing.bottleneck},
         {"bottleneck_utilization", p.queueing.bottleneck_utilization},
         {"exact_mva", p.queueing.exact}});
  }
  j["predictions"] = rows_json;
  j["turning_point"] = {{"procs", turning_point}, {"threshold", threshold}};
  j["warnings"] = model_warnings;
  j["reliability"] = {{"method", reliability.method},
                      {"queueing_error", reliability.queueing_error},
                      {"amdahl_error", reliability.amdahl_error},
                      {"trusted", reliability.trusted},
                      {"recommended_model", use_amdahl ? "amdahl" : "queueing-network"},
                      {"warning", reliability.warning}};
  if (group)
    j["best_group"] = {{"servers", group->hosts}, {"procs", group_procs}, {"predicted_s", group->time_s},
                       {"exhaustive", group->exhaustive}};
  return j;
}

std::string QueueingPredictions::text() const
{
  std::string out;
  if (!structure.empty())
    out += fmt::format("point-to-point structure: {}\n{}", structure, collectives.empty() ? "\n" : "");
  if (!collectives.empty())
    out += fmt::format("collectives: {}\n\n", collectives);
  out += fmt::format("{:>6} {:>14} {:>12} {:>14} {:>9}  {}\n", "procs", "predicted_s", "amdahl_s",
                     use_amdahl ? "recommended*" : "recommended", "speedup", "bottleneck (utilisation)");
  for (const QueueingPredictionRow& r : rows) {
    const SweepPoint& p = r.point;
    out += fmt::format("{:>6} {:>14.6g} {:>12} {:>14} {:>9.2f}  {} ({:.0f}%){}{}\n", p.queueing.procs,
                       p.queueing.time_s, law_cell(p.amdahl_s),
                       !(r.recommended_s > 0) ? std::string("n/a")
                       : r.band >= 0          ? fmt::format("{:.4g} +-{:.0f}%", r.recommended_s, 100 * r.band)
                                              : fmt::format("{:.4g} ?", r.recommended_s),
                       p.speedup, p.queueing.bottleneck, 100 * p.queueing.bottleneck_utilization,
                       p.queueing.exact ? "" : " [approximate MVA]", r.warning.empty() ? "" : " [guess: see the warning]");
  }
  if (use_amdahl)
    out += "* Amdahl's law: the queueing model failed its held-out checks and Amdahl's law did clearly better (see the "
           "warning)\n";
  out += fmt::format("\nturning point: {} processes (the next step gains less than {:.0f}%)\n", turning_point,
                     100 * threshold);
  if (group) {
    std::string names;
    for (const auto& h : group->hosts)
      names += (names.empty() ? "" : ", ") + h;
    out += fmt::format("best group of {} servers for {} processes: {} ({:.6g} s{})\n", group_size, group_procs, names,
                       group->time_s, group->exhaustive ? "" : ", greedy search");
  }
  return out;
}

std::string QueueingPredictions::svg() const
{
  PlotSeries qn{"queueing model", "#4c78a8", {}, false}, am{"Amdahl baseline", "#f58518", {}, false},
      ms{"measured", "#e45756", {}, true};
  for (const QueueingPredictionRow& r : rows) {
    qn.points.emplace_back(r.point.queueing.procs, r.point.queueing.time_s);
    am.points.emplace_back(r.point.queueing.procs, r.point.amdahl_s);
  }
  for (const MeasuredRun& r : measured)
    ms.points.emplace_back(r.procs, r.time_s);
  std::vector<PlotSeries> series{qn, am};
  if (!ms.points.empty())
    series.push_back(ms);
  LineChart chart{"predicted run time (" + placement + " placement)", model_name + " on " + platform_name, "processes",
                  "seconds", true, counts, {}};
  return line_chart_svg(chart, series);
}

} // namespace perfcast
