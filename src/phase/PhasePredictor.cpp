#include "phase/PhasePredictor.hpp"

#include "core/Error.hpp"
#include "core/Statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <fmt/format.h>

namespace perfcast::phase {
namespace {

/// How far beyond the largest small run a prediction is still supported.
constexpr double kSupportedReach = 4;

using Rule = std::function<double(const std::vector<double>&, const std::vector<double>&, double)>;

/// Forward validation with 4 runs or more (at least 3 to learn from), else
/// leave-one-out; -1 when the rule cannot be trained on some fold (too few
/// runs for it, or times it cannot fit).
double validate(const std::vector<double>& sizes, const std::vector<double>& times, const std::string& how,
                const Rule& rule) {
  bool failed = false;
  const Rule guarded = [&](const std::vector<double>& n, const std::vector<double>& t, double x) {
    try {
      return rule(n, t, x);
    } catch (const Error&) {
      failed = true;
      return 0.0;
    }
  };
  const double score = how == "forward" ? forward_smape(sizes, times, guarded) : leave_one_out_smape(sizes, times, guarded);
  return failed ? -1 : score;
}

std::string score_text(double score) { return score < 0 ? "not validated" : fmt::format("{:.1f}%", 100 * score); }

PhaseForecast forecast_phase(const std::string& name, const std::vector<double>& sizes,
                             const std::vector<double>& times, const std::vector<KernelModel>& kernels,
                             const std::vector<SizeDims>& dims, double target, const CascadeRule& rule,
                             const ScalingRule& scaling, std::vector<std::string>& warnings) {
  PhaseForecast f;
  f.name = name;
  f.validation = sizes.size() >= 4 ? "forward" : "leave-one-out";
  std::vector<PhaseSample> runs;
  for (std::size_t i = 0; i < sizes.size(); ++i) runs.push_back({sizes[i], times[i]});
  for (std::size_t i = 0; i < kernels.size(); ++i) f.candidates.push_back(match_phase(runs, kernels[i], target, dims[i]));
  f.selection = select_kernel(f.candidates, rule);
  if (f.selection.chosen >= 0) {
    const KernelModel& k = kernels[f.selection.chosen];
    const SizeDims d = dims[f.selection.chosen];
    f.kernel_s = predict_phase_seconds(f.candidates[f.selection.chosen], k, target);
    // Validation with the chosen kernel fixed: matched on the training runs,
    // asked for the run held out.
    f.kernel_cv_smape = validate(sizes, times, f.validation, [&](const auto& n, const auto& t, double x) {
      std::vector<PhaseSample> kept;
      for (std::size_t i = 0; i < n.size(); ++i) kept.push_back({n[i], t[i]});
      return predict_phase_seconds(match_phase(kept, k, x, d), k, x);
    });
  }
  std::optional<ScalingModel> own;
  try {
    const ScalingChoice c = choose_scaling(sizes, times, scaling);
    own = c.chosen;
    f.own_fit_best_scored = c.best_scored;
    f.own_fit_why = c.why;
    f.own_fit_low_s = f.own_fit_high_s = c.chosen(target);
    for (const ScalingModel& m : c.admitted) {
      f.own_fit_low_s = std::min(f.own_fit_low_s, m(target));
      f.own_fit_high_s = std::max(f.own_fit_high_s, m(target));
    }
  } catch (const Error& e) {
    warnings.push_back(fmt::format("phase {}: no own scaling fit ({})", name, e.what()));
  }
  if (own) {
    f.own_fit = *own;
    f.own_fit_s = own->operator()(target);
    f.own_fit_cv_smape = validate(sizes, times, f.validation, [&](const auto& n, const auto& t, double x) {
      return fit_scaling(n, t, scaling)(x);
    });
  } else {
    f.own_fit_cv_smape = -1;
  }
  // Only a method that validated within kValidationLimit answers. Between
  // two, the kernel answers unless the own fit did better; scores within
  // 1e-9 are a tie (rounding), and a tie goes to the kernel, the paper's
  // method. Scores that differ by less than the runs' spread are not told
  // apart by them, and neither method is simpler than the other: their mean
  // answers (equal weights, as in forecast combination). When neither
  // validated, the phase's own fit gives its measured trend, marked so, with
  // the band of what the methods give at the target.
  //
  // Nor does a method whose answer goes against the series: beyond the
  // largest size of a series that grows beyond its noise, an answer below
  // that size's time less its noise would have the phase shrink as its input
  // grows.
  const auto passes = [](double score) { return score >= 0 && score <= kValidationLimit; };
  const SeriesTrend trend = series_trend(sizes, times, scaling.spread);
  const double floor_s =
      !scaling.best_score && trend.direction == Direction::growing && target > sizes.back()
          ? times.back() / (1 + trend.noise)
          : 0.0;
  std::string against; // the methods refused for shrinking
  const auto follows = [&](double answer, const std::string& what) {
    if (answer >= floor_s) return true;
    against += fmt::format("; {} refused: {:.4g} s at {:.4g} is below {:.4g} s, measured at {:.4g}, where the series {}",
                           what, answer, target, times.back(), sizes.back(), trend.describe());
    return false;
  };
  const bool kernel_ok = f.kernel_s && passes(f.kernel_cv_smape) &&
                         follows(*f.kernel_s, fmt::format("kernel {}", kernels[f.selection.chosen].name()));
  const bool own_ok = own && passes(f.own_fit_cv_smape) && follows(f.own_fit_s, "own fit");
  const bool close = kernel_ok && own_ok && !scaling.best_score && scaling.spread > 0 &&
                     std::abs(f.kernel_cv_smape - f.own_fit_cv_smape) <= scaling.spread + 1e-12;
  const bool own_better = own_ok && (!kernel_ok || f.own_fit_cv_smape + 1e-9 < f.kernel_cv_smape);
  if (close) {
    f.predicted_s = (*f.kernel_s + f.own_fit_s) / 2;
    f.method = "combined";
    f.why = fmt::format("the mean of kernel {} ({:.4g} s) and own fit {} ({:.4g} s): {} SMAPE {} and {}, within the "
                        "phase's run-to-run spread {}, not told apart",
                        kernels[f.selection.chosen].name(), *f.kernel_s, f.own_fit.describe(), f.own_fit_s,
                        f.validation, score_text(f.kernel_cv_smape), score_text(f.own_fit_cv_smape),
                        score_text(scaling.spread));
  } else if (kernel_ok && !own_better) {
    f.predicted_s = *f.kernel_s;
    f.method = "kernel";
    f.why = fmt::format("kernel {}: {} SMAPE {}, own fit {}: {}", kernels[f.selection.chosen].name(), f.validation,
                        score_text(f.kernel_cv_smape), own ? f.own_fit.describe() : "none",
                        score_text(f.own_fit_cv_smape));
  } else if (own_ok) {
    f.predicted_s = f.own_fit_s;
    f.method = "own-fit";
    f.why = f.kernel_s ? fmt::format("own fit {}: {} SMAPE {}, better than kernel {}: {}", f.own_fit.describe(),
                                     f.validation, score_text(f.own_fit_cv_smape),
                                     kernels[f.selection.chosen].name(), score_text(f.kernel_cv_smape))
                       : fmt::format("no kernel matches ({}); own fit {}: {} SMAPE {}", f.selection.reason,
                                     f.own_fit.describe(), f.validation, score_text(f.own_fit_cv_smape));
  } else if (own || f.kernel_s) {
    f.validated = false;
    f.method = own ? "trend" : "kernel";
    f.predicted_s = own ? f.own_fit_s : *f.kernel_s;
    // An own fit that goes against the series is not its trend either: the
    // series' own log-log slope carried from its largest size is.
    const bool carried_trend = own && f.own_fit_s < floor_s;
    if (carried_trend) {
      f.method = "trend";
      f.predicted_s = times.back() * std::pow(target / sizes.back(), trend.slope);
    }
    // The band: the own fit's indistinguishable forms, and the series' own
    // growth carried from its largest size at each local exponent between two
    // neighbouring sizes (the trend as measured, whatever form fits it). The
    // kernel's answer failed validation and is named, not taken into it.
    f.low_s = f.high_s = f.predicted_s;
    if (own) {
      f.low_s = std::min(f.low_s, f.own_fit_low_s);
      f.high_s = std::max(f.high_s, f.own_fit_high_s);
    }
    for (std::size_t i = 1; i < sizes.size(); ++i)
      if (times[i - 1] > 0 && times[i] > 0 && sizes[i] > sizes[i - 1]) {
        const double slope = std::log(times[i] / times[i - 1]) / std::log(sizes[i] / sizes[i - 1]);
        const double carried = times.back() * std::pow(target / sizes.back(), slope);
        f.low_s = std::min(f.low_s, carried);
        f.high_s = std::max(f.high_s, carried);
      }
    const std::string kernel_text =
        f.kernel_s ? fmt::format("kernel {} ({} SMAPE {}, {:.4g} s)", kernels[f.selection.chosen].name(),
                                 f.validation, score_text(f.kernel_cv_smape), *f.kernel_s)
                   : fmt::format("no kernel ({})", f.selection.reason);
    const std::string own_text = own ? fmt::format("own fit {} ({} SMAPE {}, {:.4g} s)", f.own_fit.describe(),
                                                   f.validation, score_text(f.own_fit_cv_smape), f.own_fit_s)
                                     : "no own fit";
    const std::string trend_text =
        carried_trend ? fmt::format("its measured trend (the series' slope n^{:.3g} carried from size {:.4g})",
                                    trend.slope, sizes.back())
                      : "its measured trend";
    f.why = fmt::format("not validated: {} and {}; {}", kernel_text, own_text,
                        own ? fmt::format("{} answers", trend_text) : "the kernel answers unvalidated");
    warnings.push_back(fmt::format(
        "phase {}: neither method validated within {:.0f}%{} ({}; {}): {:.4g} s is {}, {:.4g} to {:.4g} s as the "
        "small sizes' growth carries it; {}",
        name, 100 * kValidationLimit, against.empty() ? "" : " and followed the series", kernel_text, own_text,
        f.predicted_s, own ? trend_text : "the kernel's", f.low_s, f.high_s,
        sizes.size() < 4 ? "a fourth small size would let forward validation judge the own fit"
                         : "more small sizes, or repeats to lower their spread, would let a method validate"));
  } else {
    throw Error(fmt::format("phase {}: no kernel matches ({}) and its times cannot be fitted", name,
                            f.selection.reason));
  }
  f.why += against;
  if (f.validated) f.low_s = f.high_s = f.predicted_s;
  // An own fit in the answer whose indistinguishable forms disagree at the
  // target by more than the goal (+-10%): the span of the small runs
  // cannot carry the extrapolation asked.
  if (f.validated && own && f.method != "kernel" && f.own_fit_high_s - f.own_fit_low_s > 0.2 * f.own_fit_s) {
    const double lo = sizes.front(), hi = sizes.back();
    warnings.push_back(fmt::format("phase {}: the small runs admit own-fit forms giving {:.4g} to {:.4g} s at size "
                                   "{:.4g} (chosen {:.4g} s); sizes {:.4g} to {:.4g} span {:.3g}x and the target is "
                                   "{:.3g}x the largest: too short a span to bound this extrapolation to +-10%",
                                   name, f.own_fit_low_s, f.own_fit_high_s, target, f.own_fit_s, lo, hi, hi / lo,
                                   target / hi));
  }
  // Kernels that follow the phase but were refused for their range: sFactor
  // maps a phase to the kernel size that takes as long, so the database must
  // reach about the phase's time at the target.
  if (f.selection.chosen < 0) {
    int beyond = 0;
    for (const MatchStats& c : f.candidates)
      beyond += c.abs_am < rule.abs_am_max && c.pred_dev < rule.pred_dev_max && !c.in_range;
    if (beyond > 0)
      warnings.push_back(fmt::format("phase {}: {} kernel(s) follow it but were not measured to the size the target "
                                     "maps to; the phase takes about {:.3g} s at the target, and a kernel is used "
                                     "only as far as its runs took about that long (perfcast kernels build "
                                     "--max-seconds, where the kernel's ladder allows)",
                                     name, beyond, f.predicted_s));
  }
  return f;
}

/// The median (the mean of the middle two for an even count) and (largest - smallest) / smallest.
std::pair<double, double> median_and_spread(const std::vector<double>& v) {
  return {median(v), relative_range(v)};
}

} // namespace

namespace {

/// The sizes' logs: their mean and the sum of their squared deviations from it (a log-log line's leverage).
std::pair<double, double> log_mean_and_sxx(const std::vector<double>& sizes) {
  double mean = 0;
  for (double n : sizes) mean += std::log(n) / static_cast<double>(sizes.size());
  double sxx = 0;
  for (double n : sizes) sxx += (std::log(n) - mean) * (std::log(n) - mean);
  return {mean, sxx};
}

} // namespace

double extrapolation_noise(const std::vector<double>& sizes, double target, double spread) {
  if (sizes.size() < 2 || !(spread > 0)) return 0;
  const auto [mean, sxx] = log_mean_and_sxx(sizes);
  if (!(sxx > 0)) return std::numeric_limits<double>::infinity();
  const double d = std::log(target) - mean;
  return spread * std::sqrt(1 / static_cast<double>(sizes.size()) + d * d / sxx);
}

double supported_factor(const std::vector<double>& sizes, double spread, double bound) {
  if (sizes.size() < 2 || !(spread > 0)) return std::numeric_limits<double>::infinity();
  const double largest = *std::max_element(sizes.begin(), sizes.end());
  const auto [mean, sxx] = log_mean_and_sxx(sizes);
  // (bound / spread)^2 = 1/N + (ln S - mean)^2 / sxx, solved for ln S
  const double q = (bound / spread) * (bound / spread) - 1 / static_cast<double>(sizes.size());
  if (!(q > 0)) return 1;
  const double log_factor = std::sqrt(q * sxx) - (std::log(largest) - mean);
  return log_factor > 0 ? std::exp(log_factor) : 1;
}

double geometric_step_for(int count, double factor, double spread, double bound) {
  const auto carries = [&](double step) {
    std::vector<double> ladder;
    for (int k = 0; k < count; ++k) ladder.push_back(std::pow(step, k));
    return extrapolation_noise(ladder, factor * ladder.back(), spread) <= bound;
  };
  double hi = 16;
  if (count < 2 || !carries(hi)) return 0;
  double lo = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (carries(mid) ? hi : lo) = mid;
  }
  return hi;
}

SizeRun size_run_from_repeats(double size, const std::vector<RepeatTimes>& repeats,
                              const std::vector<std::string>& phases) {
  if (repeats.empty()) throw Error(fmt::format("size {}: no run (expected at least one)", size));
  SizeRun out;
  out.size = size;
  std::vector<double> totals;
  for (const RepeatTimes& r : repeats) totals.push_back(r.total_seconds);
  const auto [total, total_spread] = median_and_spread(totals);
  out.total_seconds = total;
  out.spread = repeats.size() >= 2 ? total_spread : -1;
  for (const std::string& p : phases) {
    std::vector<double> times;
    for (const RepeatTimes& r : repeats) {
      const auto it = r.phase_seconds.find(p);
      times.push_back(it == r.phase_seconds.end() ? 0.0 : it->second);
    }
    const auto [median, spread] = median_and_spread(times);
    out.phase_seconds[p] = median;
    if (repeats.size() >= 2) out.phase_spread[p] = spread;
  }
  return out;
}

RunForecast predict_run(const std::vector<SizeRun>& runs, const std::vector<std::string>& phases,
                        const std::vector<KernelModel>& kernels, double target_size, const CascadeRule& rule,
                        const SizeUnits& units, Choice choice) {
  if (runs.size() < 3)
    throw Error(fmt::format("{} small run(s) (expected at least 3 sizes to match and validate)", runs.size()));
  if (phases.empty()) throw Error("no phases to predict (expected at least one phase)");
  if (kernels.empty()) throw Error("the kernel database is empty (expected kernels measured by perfcast kernels build)");
  if (units.phase_dim < 0 || units.phase_dim > 3)
    throw Error(fmt::format("the application's size spans {} dimensions (expected 1 to 3, or 0 for the sizes as given)",
                            units.phase_dim));
  if (units.phase_dim > 0 && units.kernel_dims.size() != kernels.size())
    throw Error(fmt::format("{} kernel size units for {} kernels (expected one per kernel)", units.kernel_dims.size(),
                            kernels.size()));
  std::vector<SizeDims> dims(kernels.size()); // the paper's: {1, 1}
  if (units.phase_dim > 0)
    for (std::size_t i = 0; i < kernels.size(); ++i) dims[i] = {units.phase_dim, units.kernel_dims[i]};
  RunForecast out;
  out.size = target_size;
  out.units = units;
  out.choice = choice;
  std::vector<SizeRun> sorted = runs; // forward validation reads them by size
  std::stable_sort(sorted.begin(), sorted.end(), [](const SizeRun& a, const SizeRun& b) { return a.size < b.size; });
  std::vector<double> sizes, spreads;
  for (const SizeRun& r : sorted) {
    if (r.spread >= 0) spreads.push_back(r.spread);
    if (!(r.total_seconds > 0))
      throw Error(fmt::format("the run at size {} took {} s (expected a positive time)", r.size, r.total_seconds));
    sizes.push_back(r.size);
  }
  out.spread = median_spread(spreads);
  const ScalingRule scaling{choice == Choice::best_score ? 0.0 : out.spread, choice == Choice::best_score};
  const double largest = *std::max_element(sizes.begin(), sizes.end());
  if (target_size > kSupportedReach * largest)
    out.warnings.push_back(fmt::format("size {:.4g} is {:.1f}x the largest small run ({:.4g}); predictions beyond "
                                       "{}x are extrapolations the small runs cannot support",
                                       target_size, target_size / largest, largest, kSupportedReach));
  // The span of the small sizes against the factor asked (the method's
  // bound, not a fit: the noise of a known power law carried to the target).
  if (const double noise = extrapolation_noise(sizes, target_size, out.spread); noise > 0.1) {
    const double step = geometric_step_for(static_cast<int>(sizes.size()), target_size / largest, out.spread);
    out.warnings.push_back(fmt::format(
        "the small sizes {:g} to {:g} span {:.3g}x and the target is {:.3g}x the largest: at the runs' {:.1f}% spread "
        "a power law through them is uncertain by about {:.0f}% there (they carry {:.3g}x within 10%); {}",
        sizes.front(), sizes.back(), sizes.back() / sizes.front(), target_size / largest, 100 * out.spread,
        100 * noise, supported_factor(sizes, out.spread), step > 0
            ? fmt::format("a geometric ladder of {} sizes with factor {:.3g} or more (--sizes START:*{:.3g}) would "
                          "carry it", sizes.size(), step, step)
            : fmt::format("no ladder of {} sizes carries it at this spread: more repeats or more sizes",
                          sizes.size())));
  }
  std::vector<double> predicted, totals;
  std::vector<std::vector<double>> phase_times;
  for (const SizeRun& r : sorted) totals.push_back(r.total_seconds);
  for (const std::string& name : phases) {
    std::vector<double> times;
    for (const SizeRun& r : sorted) {
      const auto it = r.phase_seconds.find(name);
      if (it == r.phase_seconds.end() || !(it->second > 0))
        throw Error(fmt::format("phase {} has no time in the run at size {} (expected every phase in every run)",
                                name, r.size));
      times.push_back(it->second);
    }
    // The phase's own noise (its spread over each size's repeats) where the
    // series recorded it: a phase can vary twice as much as the run
    // (miniMD's force loop 6.8% at 23 where the run was 3.2%).
    std::vector<double> own_spreads;
    for (const SizeRun& r : sorted)
      if (const auto it = r.phase_spread.find(name); it != r.phase_spread.end()) own_spreads.push_back(it->second);
    const double phase_spread = own_spreads.empty() ? out.spread : median_spread(own_spreads);
    const ScalingRule phase_scaling{choice == Choice::best_score ? 0.0 : phase_spread, choice == Choice::best_score};
    PhaseForecast f =
        forecast_phase(name, sizes, times, kernels, dims, target_size, rule, phase_scaling, out.warnings);
    f.spread = phase_scaling.spread;
    predicted.push_back(f.predicted_s);
    phase_times.push_back(std::move(times));
    out.phases.push_back(std::move(f));
  }
  // A phase with too few samples per rank at some small size cannot be
  // extrapolated on its own: its sampled time varies by about 1/sqrt(N)
  // from sampling alone (miniFE's sum_into, about 10 samples per rank:
  // repeats 40% apart, every form including the constant admitted, -90% at
  // the target). Under within-spread, such a phase joins the time outside
  // the phases, which RunTotal carries from many more samples, and is
  // reported as its pooled share of that time over the small sizes.
  bool rate_known = !sorted.empty();
  for (const SizeRun& r : sorted) rate_known = rate_known && r.hz > 0;
  std::vector<bool> thin(out.phases.size(), false);
  std::size_t thin_count = 0;
  for (std::size_t p = 0; p < out.phases.size() && rate_known; ++p) {
    std::size_t at = 0;
    for (std::size_t i = 1; i < sorted.size(); ++i)
      if (phase_times[p][i] * sorted[i].hz < phase_times[p][at] * sorted[at].hz) at = i;
    const double samples = phase_times[p][at] * sorted[at].hz;
    out.phases[p].samples_per_rank = samples;
    if (samples >= kMinPhaseSamples) continue;
    thin[p] = true;
    ++thin_count;
    const double hz_needed = 10 * std::ceil(sorted[at].hz * kMinPhaseSamples / samples / 10);
    out.warnings.push_back(fmt::format(
        "phase {}: {:.0f} samples per rank at size {:g} (at {:g} Hz), fewer than {:.0f}: its time varies by about "
        "{:.0f}% from sampling alone; phases run --hz {:g} would give {:.0f}",
        out.phases[p].name, samples, sorted[at].size, sorted[at].hz, kMinPhaseSamples, 100 / std::sqrt(samples),
        hz_needed, kMinPhaseSamples));
  }
  const bool carry_thin = choice == Choice::within_spread && thin_count > 0 && thin_count < out.phases.size();
  std::vector<std::vector<double>> kept_times;
  std::vector<double> kept_predicted;
  for (std::size_t p = 0; p < out.phases.size(); ++p)
    if (!(carry_thin && thin[p])) {
      kept_times.push_back(phase_times[p]);
      kept_predicted.push_back(predicted[p]);
    }
  out.total = predict_total(sizes, totals, kept_times, kept_predicted, target_size, out.warnings, scaling);
  out.predicted_s = out.total.total_s;
  double remainder_s = out.total.total_s; // outside the phases kept, at the target
  for (double t : kept_predicted) remainder_s -= t;
  std::vector<double> outside(sorted.size()); // outside the phases kept, at each small size
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    outside[i] = totals[i];
    for (const std::vector<double>& t : kept_times) outside[i] -= t[i];
  }
  for (std::size_t p = 0, k = 0; p < out.phases.size(); ++p) {
    PhaseForecast& f = out.phases[p];
    if (!(carry_thin && thin[p])) {
      f.share = out.total.shares[k++];
      continue;
    }
    double own = 0, all = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) own += phase_times[p][i], all += outside[i];
    const double pooled = all > 0 ? std::min(1.0, own / all) : 0.0;
    f.predicted_s = pooled * std::max(0.0, remainder_s);
    f.method = "remainder-share";
    f.why = fmt::format("{:.0f} samples per rank at a small size, fewer than {:.0f}: carried with the time outside the "
                        "phases ({}), of which it held {:.1f}% over the small sizes",
                        f.samples_per_rank, kMinPhaseSamples, out.total.candidates[out.total.chosen].rule,
                        100 * pooled);
    f.share = out.total.total_s > 0 ? f.predicted_s / out.total.total_s : 0.0;
    f.validated = true; // carried by the run's rule, validated with it
    f.low_s = f.high_s = f.predicted_s;
  }
  return out;
}

} // namespace perfcast::phase
