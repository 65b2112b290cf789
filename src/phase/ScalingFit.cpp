#include "phase/ScalingFit.hpp"

#include "core/Error.hpp"
#include "core/Statistics.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace perfcast::phase {
namespace {

struct Hypothesis {
  double exponent;
  int log_power;
};

/// Extra-P's default search space: exponents i/j up to 3, log powers 0 to 2.
std::vector<Hypothesis> hypotheses() {
  const double exps[] = {0, 0.25, 1.0 / 3, 0.5, 2.0 / 3, 0.75, 1, 1.25, 4.0 / 3, 1.5,
                         5.0 / 3, 1.75, 2, 2.25, 7.0 / 3, 2.5, 8.0 / 3, 2.75, 3};
  std::vector<Hypothesis> h;
  for (int k = 0; k <= 2; ++k)
    for (double e : exps)
      if (e > 0 || k > 0) h.push_back({e, k});
  return h;
}

double term(const Hypothesis& h, double n) {
  return std::pow(n, h.exponent) * std::pow(std::log2(n), h.log_power);
}

/// c0, c1 by least squares, on relative residuals (weights 1 / t^2) when
/// `relative`, else on seconds; false when the term does not vary or c1 < 0
/// (a phase's time that falls as its input grows is not a model to
/// extrapolate). With `nonnegative`, a fit with c0 < 0 is refitted with c0 =
/// 0, the least-squares optimum on the boundary c0 >= 0: a negative part
/// that does not grow is a steeper law than the form's, passing as it over
/// the measured span (a line with a negative intercept for an n^3 sweep).
bool fit_one(const Hypothesis& h, const std::vector<double>& n, const std::vector<double>& t, bool relative,
             double& c0, double& c1, bool nonnegative = false) {
  double sw = 0, sx = 0, sy = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double w = relative ? 1 / (t[i] * t[i]) : 1;
    sw += w;
    sx += w * term(h, n[i]);
    sy += w * t[i];
  }
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double w = relative ? 1 / (t[i] * t[i]) : 1;
    const double dx = term(h, n[i]) - mx;
    sxx += w * dx * dx;
    sxy += w * dx * (t[i] - my);
  }
  if (!(sxx > 1e-300 * sw * (1 + mx * mx))) return false;
  c1 = sxy / sxx;
  c0 = my - c1 * mx;
  if (nonnegative && c0 < 0 && c1 > 0) {
    double sxt = 0, sx2 = 0;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const double w = relative ? 1 / (t[i] * t[i]) : 1;
      const double x = term(h, n[i]);
      sxt += w * x * t[i];
      sx2 += w * x * x;
    }
    c0 = 0;
    c1 = sxt / sx2;
  }
  return c1 >= 0 && std::isfinite(c0) && std::isfinite(c1);
}

double smape(double predicted, double measured) {
  const double denom = std::abs(predicted) + std::abs(measured);
  return denom > 0 ? 2 * std::abs(predicted - measured) / denom : 0;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

using Rule = std::function<double(const std::vector<double>&, const std::vector<double>&, double)>;

/// Each held-out run's SMAPE under leave-one-out.
std::vector<double> leave_one_out_errors(const std::vector<double>& sizes, const std::vector<double>& seconds,
                                         const Rule& rule) {
  std::vector<double> errors;
  for (std::size_t out = 0; out < sizes.size(); ++out) {
    std::vector<double> n, t;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (i != out) {
        n.push_back(sizes[i]);
        t.push_back(seconds[i]);
      }
    errors.push_back(smape(rule(n, t, sizes[out]), seconds[out]));
  }
  return errors;
}

/// Standard error of the mean of `v` (its sample standard deviation over sqrt(size)).
double standard_error(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1)) / std::sqrt(static_cast<double>(v.size()));
}

/// Simpler forms first: the constant, then by log power, and within one log
/// power integer exponents, then half-integers, then the other fractions.
int simplicity(const ScalingModel& m) {
  if (m.exponent == 0 && m.log_power == 0) return 0;
  const double e = m.exponent;
  const int fraction = std::abs(e - std::round(e)) < 1e-9 ? 0 : std::abs(2 * e - std::round(2 * e)) < 1e-9 ? 1 : 2;
  return 1 + 3 * m.log_power + fraction;
}

void check(const std::vector<double>& sizes, const std::vector<double>& seconds) {
  if (sizes.size() != seconds.size())
    throw Error(fmt::format("{} sizes and {} times (expected one time per size)", sizes.size(), seconds.size()));
  std::set<double> distinct;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!(std::isfinite(sizes[i]) && sizes[i] > 1 && std::isfinite(seconds[i]) && seconds[i] > 0))
      throw Error(fmt::format("size {} with time {} s (expected a size above 1 and a positive time)", sizes[i],
                              seconds[i]));
    distinct.insert(sizes[i]);
  }
  if (distinct.size() < 3)
    throw Error(fmt::format("{} distinct size(s) (expected at least 3 to fit and cross-validate a scaling model)",
                            distinct.size()));
}

std::string percent(double x) { return fmt::format("{:.2g}%", 100 * x); }

/// The least-squares line y = a + b u; b = 0, a = mean(y) when u does not vary.
struct Line {
  double a = 0, b = 0;
};
Line least_squares_line(const std::vector<double>& u, const std::vector<double>& y) {
  const double mu = mean(u), my = mean(y);
  double suu = 0, suy = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    suu += (u[i] - mu) * (u[i] - mu);
    suy += (u[i] - mu) * (y[i] - my);
  }
  if (!(suu > 0)) return {my, 0};
  return {my - suy / suu * mu, suy / suu};
}

} // namespace

double ScalingModel::operator()(double n) const {
  return c0 + c1 * std::pow(n, exponent) * std::pow(std::log2(n), log_power);
}

std::string ScalingModel::form() const {
  if (exponent == 0 && log_power == 0) return "constant";
  std::string t;
  if (exponent > 0) t = exponent == 1 ? "n" : fmt::format("n^{:.3g}", exponent);
  if (log_power > 0) {
    if (!t.empty()) t += ' ';
    t += "log2(n)";
  }
  if (log_power > 1) t += fmt::format("^{}", log_power);
  return t;
}

std::string ScalingModel::describe() const {
  if (exponent == 0 && log_power == 0) return fmt::format("{:.4g} (constant)", c0);
  if (c0 == 0) return fmt::format("{:.4g} {}", c1, form());
  return fmt::format("{:.4g} + {:.4g} {}", c0, c1, form());
}

double leave_one_out_smape(const std::vector<double>& sizes, const std::vector<double>& seconds, const Rule& rule) {
  return mean(leave_one_out_errors(sizes, seconds, rule));
}

double forward_smape(const std::vector<double>& sizes, const std::vector<double>& seconds, const Rule& rule,
                     int folds, int min_train) {
  double sum = 0;
  int used = 0;
  const int n = static_cast<int>(sizes.size());
  for (int k = std::max(min_train, n - folds); k < n; ++k) {
    const std::vector<double> train_n(sizes.begin(), sizes.begin() + k), train_t(seconds.begin(), seconds.begin() + k);
    sum += smape(rule(train_n, train_t, sizes[k]), seconds[k]);
    ++used;
  }
  return used > 0 ? sum / used : -1;
}

double median_spread(std::vector<double> spreads) { return median(std::move(spreads)); }

SeriesTrend series_trend(const std::vector<double>& sizes, const std::vector<double>& seconds, double spread) {
  // A trend needs positive sizes and times only (a size of 1 has a log),
  // not the three sizes above 1 the hypotheses' log2 factors need.
  if (sizes.size() != seconds.size())
    throw Error(fmt::format("{} sizes and {} times (expected one time per size)", sizes.size(), seconds.size()));
  std::vector<double> u, y;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!(std::isfinite(sizes[i]) && sizes[i] > 0 && std::isfinite(seconds[i]) && seconds[i] > 0))
      throw Error(fmt::format("size {} with time {} s (expected a positive size and a positive time)", sizes[i],
                              seconds[i]));
    u.push_back(std::log(sizes[i]));
    y.push_back(std::log(seconds[i]));
  }
  const auto [a, b] = least_squares_line(u, y);
  SeriesTrend out;
  const auto [lo, hi] = std::minmax_element(u.begin(), u.end());
  out.slope = b;
  out.change = std::exp(b * (*hi - *lo)) - 1;
  if (spread > 0) {
    out.noise = spread;
  } else {
    double ss = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
      const double r = std::exp(y[i] - (a + b * u[i])) - 1;
      ss += r * r;
    }
    out.noise = 2 * std::sqrt(ss / static_cast<double>(u.size()));
  }
  out.direction = out.change > out.noise ? Direction::growing
                  : out.change < -out.noise ? Direction::falling
                                            : Direction::flat;
  return out;
}

std::string SeriesTrend::describe() const {
  const char* how = direction == Direction::growing ? "grows" : "falls";
  if (direction == Direction::flat)
    return fmt::format("is flat: changes {:+.3g}% over the sizes, within its noise {:.3g}%", 100 * change,
                       100 * noise);
  return fmt::format("{} {:.3g}% over the sizes, beyond its noise {:.3g}%", how, 100 * std::abs(change), 100 * noise);
}

double log_departure(const std::vector<double>& sizes, int log_power) {
  // y = k ln log2(n) against u = ln n: the least-squares line is the closest
  // power law n^b; the largest residual, as a ratio, is the bend.
  std::vector<double> u, y;
  for (double n : sizes) {
    u.push_back(std::log(n));
    y.push_back(log_power * std::log(std::log2(n)));
  }
  const Line line = least_squares_line(u, y);
  double most = 0;
  for (std::size_t i = 0; i < u.size(); ++i)
    most = std::max(most, std::abs(std::exp(y[i] - (line.a + line.b * u[i])) - 1));
  return most;
}

ScalingChoice choose_scaling(const std::vector<double>& sizes, const std::vector<double>& seconds,
                             const ScalingRule& rule) {
  check(sizes, seconds);
  const bool relative = !rule.best_score;
  ScalingChoice out;
  out.log_departure = {log_departure(sizes, 1), log_departure(sizes, 2)};
  // The span bounds the log powers: a log factor that bends the curve over
  // the measured sizes by less than the runs' own spread is not seen by
  // them, and past them it only stands in for another exponent.
  if (!rule.best_score) {
    out.max_log_power = 0;
    for (int k = 1; k <= 2; ++k)
      if (out.log_departure[k - 1] >= rule.spread) out.max_log_power = k;
  }
  struct Scored {
    ScalingModel model;
    std::vector<double> errors;
  };
  std::vector<Scored> scored;
  out.trend = series_trend(sizes, seconds, rule.spread);
  const bool admits_constant = rule.best_score || out.trend.direction != Direction::growing;
  const bool nonnegative = !rule.best_score;
  const auto score_constant = [&] {
    const std::vector<double> errors =
        leave_one_out_errors(sizes, seconds, [](const auto&, const auto& t, double) { return mean(t); });
    scored.push_back({{0, 0, mean(seconds), 0, mean(errors)}, errors});
  };
  // The constant first, Extra-P's simplest model: a phase of fixed work
  // (hpcc's latency-bandwidth test) takes the same time at every size, and
  // its measured times, flat or slowly falling with noise, have no growing
  // model. It is never a falling model, and not a model of a series that
  // grows beyond its noise: the simplest form within the spread of the best
  // score would otherwise answer a growing phase with its mean.
  if (admits_constant) score_constant();
  for (const Hypothesis& h : hypotheses()) {
    if (h.log_power > out.max_log_power) continue;
    double c0 = 0, c1 = 0;
    if (!fit_one(h, sizes, seconds, relative, c0, c1, nonnegative)) continue;
    bool usable = true;
    const std::vector<double> errors = leave_one_out_errors(sizes, seconds, [&](const auto& n, const auto& t, double x) {
      double a = 0, b = 0;
      if (!fit_one(h, n, t, relative, a, b, nonnegative)) {
        usable = false;
        return 0.0;
      }
      return a + b * term(h, x);
    });
    if (!usable) continue;
    scored.push_back({{h.exponent, h.log_power, c0, c1, mean(errors)}, errors});
  }
  // No growing form survives its own leave-one-out folds: the constant is all
  // that is left, and the reason says so.
  const bool constant_as_last_resort = scored.empty();
  if (constant_as_last_resort) score_constant();
  // Strictly better only: on a tie the earlier (simpler) hypothesis stays.
  std::size_t best = 0;
  for (std::size_t i = 1; i < scored.size(); ++i)
    if (scored[i].model.loo_smape < scored[best].model.loo_smape - 1e-12) best = i;
  out.best_scored = scored[best].model;
  if (rule.best_score) {
    out.chosen = out.best_scored;
    out.admitted = {out.chosen};
    out.why = fmt::format("{}: the smallest leave-one-out SMAPE, {} (best-score)", out.chosen.form(),
                          percent(out.chosen.loo_smape));
    return out;
  }
  // One-spread rule: forms scored within the runs' spread (or one standard
  // error of the best score, whichever is larger) of the best are not told
  // apart by these runs; the simplest of them answers.
  const double se = standard_error(scored[best].errors);
  out.tolerance = std::max(rule.spread, se);
  std::size_t chosen = best;
  for (std::size_t i = 0; i < scored.size(); ++i) {
    const ScalingModel& m = scored[i].model;
    if (m.loo_smape > out.best_scored.loo_smape + out.tolerance + 1e-12) continue;
    out.admitted.push_back(m);
    const ScalingModel& c = scored[chosen].model;
    if (simplicity(m) < simplicity(c) || (simplicity(m) == simplicity(c) && m.loo_smape < c.loo_smape - 1e-12))
      chosen = i;
  }
  out.chosen = scored[chosen].model;
  const double lo = *std::min_element(sizes.begin(), sizes.end()), hi = *std::max_element(sizes.begin(), sizes.end());
  out.why = fmt::format("{}: the simplest of {} form(s) within {} ({}) of the best leave-one-out SMAPE, {} ({})",
                        out.chosen.form(), out.admitted.size(), percent(out.tolerance),
                        out.tolerance == rule.spread ? "the runs' spread" : "one standard error",
                        percent(out.best_scored.loo_smape), out.best_scored.form());
  if (constant_as_last_resort)
    out.why += fmt::format("; the series {}, but no growing form fits every leave-one-out fold", out.trend.describe());
  else if (!admits_constant)
    out.why += fmt::format("; the constant not admitted: the series {}", out.trend.describe());
  if (out.max_log_power < 2)
    out.why += fmt::format("; log2(n){} not searched: over sizes {:.4g} to {:.4g} ({:.3g}x) log2(n) bends the curve "
                           "{}, log2(n)^2 {}, less than the runs' spread {}",
                           out.max_log_power == 0 ? "" : "^2", lo, hi, hi / lo, percent(out.log_departure[0]),
                           percent(out.log_departure[1]), percent(rule.spread));
  return out;
}

ScalingModel fit_scaling(const std::vector<double>& sizes, const std::vector<double>& seconds,
                         const ScalingRule& rule) {
  return choose_scaling(sizes, seconds, rule).chosen;
}

} // namespace perfcast::phase
