#include "phase/Matching.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numeric>

namespace perfcast::phase {
namespace {

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

/// Sample standard deviation (N - 1); 0 for a single value.
double sample_sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

void check_runs(const std::vector<PhaseSample>& runs, const char* what) {
  if (runs.size() < 2)
    throw Error(fmt::format("{} small run(s) (expected at least 2 {} to match a phase)", runs.size(), what));
  for (const PhaseSample& r : runs)
    if (!(std::isfinite(r.size) && r.size > 0 && std::isfinite(r.seconds) && r.seconds > 0))
      throw Error(fmt::format("small run of size {} with {} {} (expected a positive size and value)", r.size,
                              r.seconds, what));
}

/// x^dim for the small integer dimensions (x itself, bit for bit, at 1).
double points(double x, int dim) { return dim == 1 ? x : std::pow(x, dim); }

/// The kernel size of `p` points: p^(1/dim).
double side(double p, int dim) { return dim == 1 ? p : std::pow(p, 1.0 / dim); }

} // namespace

double linear_fit_at(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  const double mx = mean(xs), my = mean(ys);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    sxx += (xs[i] - mx) * (xs[i] - mx);
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  if (!(sxx > 0)) throw Error("a line through points that share one size (expected at least two distinct sizes)");
  return my + sxy / sxx * (x - mx);
}

MatchStats match_phase(const std::vector<PhaseSample>& runs, const KernelModel& kernel, double target_size,
                       SizeDims dims) {
  check_runs(runs, "phase times");
  if (!(std::isfinite(target_size) && target_size > 0))
    throw Error(fmt::format("target size {} (expected a positive size)", target_size));
  if (dims.phase < 1 || dims.phase > 3 || dims.kernel < 1 || dims.kernel > 3)
    throw Error(fmt::format("sizes of {} and {} dimensions (expected 1 to 3 for the phase and the kernel {})",
                            dims.phase, dims.kernel, kernel.name()));
  MatchStats m;
  m.kernel = kernel.name();
  m.dims = dims;
  std::vector<double> sizes, point_counts; // as given, and in phase points
  for (const PhaseSample& r : runs) {
    sizes.push_back(r.size);
    point_counts.push_back(points(r.size, dims.phase));
    m.sfactors.push_back(point_counts.back() / points(kernel.size_for(r.seconds), dims.kernel));
  }
  const double target_points = points(target_size, dims.phase);
  m.av_sf = mean(m.sfactors);
  m.sf_cv = sample_sd(m.sfactors) / m.av_sf;
  // the sFactor's line runs against the sizes as given, the paper's
  // extrapolation over the paper's span, in any units (Matching.hpp)
  m.sf_at_target = linear_fit_at(sizes, m.sfactors, target_size);
  m.pred_dev = std::abs(m.sf_at_target - m.av_sf) / m.av_sf;
  double sum = 0, sum_sq = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const PhaseSample& r = runs[i];
    const double e = (kernel.seconds_at(side(point_counts[i] / m.av_sf, dims.kernel)) - r.seconds) / r.seconds;
    m.errors.push_back(e);
    sum += e;
    sum_sq += e * e;
  }
  const double n = static_cast<double>(runs.size());
  m.abs_am = std::abs(sum / n);
  m.rmse = std::sqrt(sum_sq / n);
  m.std_dev = sample_sd(m.errors);
  m.kernel_size = side(target_points / m.av_sf, dims.kernel);
  m.supported_max = kernel.supported_max_size();
  m.in_range = m.kernel_size <= m.supported_max;
  return m;
}

namespace {

/// The cascade over the candidates `admitted` lets in: their standings and
/// the chosen index (-1 when none is admitted); the reason is the caller's.
Selection run_cascade(const std::vector<MatchStats>& candidates, const CascadeRule& rule,
                      const std::vector<bool>& admitted) {
  Selection sel;
  sel.standings.resize(candidates.size());
  std::vector<int> eligible;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (admitted[i]) {
      sel.standings[i].eligible = true;
      eligible.push_back(static_cast<int>(i));
    }
  if (eligible.empty()) return sel;
  // Rank the eligible by one statistic, ties by kernel name.
  auto rank_by = [&](auto key, int Standing::*slot) {
    std::vector<int> order = eligible;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const double ka = key(candidates[a]), kb = key(candidates[b]);
      if (ka != kb) return ka < kb;
      return candidates[a].kernel < candidates[b].kernel;
    });
    for (std::size_t r = 0; r < order.size(); ++r) sel.standings[order[r]].*slot = static_cast<int>(r) + 1;
  };
  rank_by([](const MatchStats& c) { return c.rmse; }, &Standing::rmse_rank);
  rank_by([](const MatchStats& c) { return c.std_dev; }, &Standing::std_dev_rank);
  rank_by([](const MatchStats& c) { return c.sf_cv; }, &Standing::sf_cv_rank);
  bool any_in_all = false;
  for (int i : eligible) {
    Standing& s = sel.standings[i];
    s.in_all_tops = s.rmse_rank <= rule.top && s.std_dev_rank <= rule.top && s.sf_cv_rank <= rule.top;
    any_in_all = any_in_all || s.in_all_tops;
  }
  auto rank_sum = [&](int i) {
    const Standing& s = sel.standings[i];
    return s.rmse_rank + s.std_dev_rank + s.sf_cv_rank;
  };
  for (int i : eligible) {
    if (any_in_all && !sel.standings[i].in_all_tops) continue;
    if (sel.chosen < 0) {
      sel.chosen = i;
      continue;
    }
    const int a = rank_sum(i), b = rank_sum(sel.chosen);
    const MatchStats &ci = candidates[i], &cb = candidates[sel.chosen];
    if (a < b || (a == b && (ci.rmse < cb.rmse || (ci.rmse == cb.rmse && ci.kernel < cb.kernel)))) sel.chosen = i;
  }
  return sel;
}

} // namespace

Selection select_kernel(const std::vector<MatchStats>& candidates, const CascadeRule& rule) {
  std::vector<bool> admitted(candidates.size()), by_shape(candidates.size());
  std::vector<std::string> beyond; // passed the thresholds, refused for their range
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const MatchStats& c = candidates[i];
    const bool fits = c.abs_am < rule.abs_am_max && c.pred_dev < rule.pred_dev_max;
    admitted[i] = fits && c.in_range;
    by_shape[i] = c.abs_am < rule.abs_am_max;
    if (fits && !c.in_range)
      beyond.push_back(fmt::format("{} at {:.4g}, past {:.4g}", c.kernel, c.kernel_size, c.supported_max));
  }
  Selection sel = run_cascade(candidates, rule, admitted);
  const auto count = std::count(admitted.begin(), admitted.end(), true);
  const bool any_in_all = std::any_of(sel.standings.begin(), sel.standings.end(),
                                      [](const Standing& s) { return s.in_all_tops; });
  const std::string refused =
      beyond.empty() ? ""
                     : fmt::format("; refused beyond the sizes measured (one end segment on): {}", fmt::join(beyond, "; "));
  // Only PredDev and the range depend on the target; the other statistics
  // are the small runs'. The kernel the small runs alone would choose (AbsAM
  // and the ranks) is named when the target refuses it, so that two targets
  // of one series that answer through different kernels say why.
  const Selection shape = run_cascade(candidates, rule, by_shape);
  std::string moved;
  if (shape.chosen >= 0 && shape.chosen != sel.chosen) {
    const MatchStats& b = candidates[shape.chosen];
    std::vector<std::string> what;
    if (!(b.pred_dev < rule.pred_dev_max))
      what.push_back(fmt::format("its PredDev is {:.3g} (not below {})", b.pred_dev, rule.pred_dev_max));
    if (!b.in_range)
      what.push_back(fmt::format("the target maps to size {:.4g}, past the {:.4g} it was measured to", b.kernel_size,
                                 b.supported_max));
    moved = fmt::format("; {} follows the small runs best, but at this target {}", b.kernel, fmt::join(what, " and "));
  }
  sel.shape_best = shape.chosen;
  if (sel.chosen < 0) {
    sel.reason = fmt::format("no kernel has AbsAM < {} and PredDev < {} within its measured range{}{}",
                             rule.abs_am_max, rule.pred_dev_max, refused, moved);
    return sel;
  }
  const Standing& s = sel.standings[sel.chosen];
  sel.reason = fmt::format("{}: ranks {} (RMSE), {} (StdDev), {} (sFCV) among {} eligible kernel(s){}",
                           candidates[sel.chosen].kernel, s.rmse_rank, s.std_dev_rank, s.sf_cv_rank, count,
                           any_in_all ? fmt::format(", in the top {} of all three", rule.top)
                                      : fmt::format("; no kernel is in the top {} of all three", rule.top)) +
               refused + moved;
  return sel;
}

double predict_phase_seconds(const MatchStats& match, const KernelModel& kernel, double target_size) {
  if (!(match.av_sf > 0)) throw Error(fmt::format("kernel {}: no sFactor to predict with", match.kernel));
  return kernel.seconds_at(side(points(target_size, match.dims.phase) / match.av_sf, match.dims.kernel));
}

double extrapolate_share(const std::vector<double>& sizes, const std::vector<double>& shares, double target_size) {
  if (sizes.size() != shares.size() || sizes.size() < 2)
    throw Error(fmt::format("{} sizes and {} shares (expected one share per size, at least 2)", sizes.size(),
                            shares.size()));
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (!(std::isfinite(sizes[i]) && sizes[i] > 0 && shares[i] > 0 && shares[i] <= 1))
      throw Error(fmt::format("share {} at size {} (expected a positive size and a fraction of the run in (0, 1])",
                              shares[i], sizes[i]));
  // Clamped: a share cannot leave (0, 1]; the floor keeps eq. 4 finite.
  return std::clamp(linear_fit_at(sizes, shares, target_size), 1e-6, 1.0);
}

double predict_total_seconds(const std::vector<double>& phase_seconds, const std::vector<double>& phase_shares) {
  if (phase_seconds.empty() || phase_seconds.size() != phase_shares.size())
    throw Error("phases and shares differ in number (expected one share per predicted phase)");
  const double t = std::accumulate(phase_seconds.begin(), phase_seconds.end(), 0.0);
  const double r = std::accumulate(phase_shares.begin(), phase_shares.end(), 0.0);
  if (!(r > 0 && r <= 1 + 1e-9))
    throw Error(fmt::format("phase shares sum to {} (expected a total in (0, 1])", r));
  return t / r;
}

} // namespace perfcast::phase
