#include "phase/ScalingFit.hpp"

#include "core/Error.hpp"

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

/// c0, c1 by least squares; false when the term does not vary or c1 < 0
/// (a phase's time that falls as its input grows is not a model to
/// extrapolate).
bool fit_one(const Hypothesis& h, const std::vector<double>& n, const std::vector<double>& t, double& c0,
             double& c1) {
  const double m = static_cast<double>(n.size());
  double sx = 0, sy = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    sx += term(h, n[i]);
    sy += t[i];
  }
  const double mx = sx / m, my = sy / m;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double dx = term(h, n[i]) - mx;
    sxx += dx * dx;
    sxy += dx * (t[i] - my);
  }
  if (!(sxx > 1e-300 * (1 + mx * mx))) return false;
  c1 = sxy / sxx;
  c0 = my - c1 * mx;
  return c1 >= 0 && std::isfinite(c0) && std::isfinite(c1);
}

double smape(double predicted, double measured) {
  const double denom = std::abs(predicted) + std::abs(measured);
  return denom > 0 ? 2 * std::abs(predicted - measured) / denom : 0;
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

} // namespace

double ScalingModel::operator()(double n) const {
  return c0 + c1 * std::pow(n, exponent) * std::pow(std::log2(n), log_power);
}

std::string ScalingModel::describe() const {
  if (exponent == 0 && log_power == 0) return fmt::format("{:.4g} (constant)", c0);
  std::string t = fmt::format("{:.4g} + {:.4g}", c0, c1);
  if (exponent > 0) t += exponent == 1 ? " n" : fmt::format(" n^{:.3g}", exponent);
  if (log_power == 1) t += " log2(n)";
  if (log_power > 1) t += fmt::format(" log2(n)^{}", log_power);
  return t;
}

double leave_one_out_smape(
    const std::vector<double>& sizes, const std::vector<double>& seconds,
    const std::function<double(const std::vector<double>&, const std::vector<double>&, double)>& rule) {
  double sum = 0;
  for (std::size_t out = 0; out < sizes.size(); ++out) {
    std::vector<double> n, t;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (i != out) {
        n.push_back(sizes[i]);
        t.push_back(seconds[i]);
      }
    sum += smape(rule(n, t, sizes[out]), seconds[out]);
  }
  return sum / static_cast<double>(sizes.size());
}

double forward_smape(
    const std::vector<double>& sizes, const std::vector<double>& seconds,
    const std::function<double(const std::vector<double>&, const std::vector<double>&, double)>& rule, int folds,
    int min_train) {
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

ScalingModel fit_scaling(const std::vector<double>& sizes, const std::vector<double>& seconds) {
  check(sizes, seconds);
  // The constant first, Extra-P's simplest model: a phase of fixed work
  // (hpcc's latency-bandwidth test) takes the same time at every size, and
  // its measured times, flat or slowly falling with noise, have no growing
  // model. It is never a falling model, and any growing hypothesis that
  // validates strictly better replaces it.
  auto mean = [](const std::vector<double>& t) {
    double sum = 0;
    for (double v : t) sum += v;
    return sum / static_cast<double>(t.size());
  };
  ScalingModel best{0, 0, mean(seconds), 0,
                    leave_one_out_smape(sizes, seconds, [&](const auto&, const auto& t, double) { return mean(t); })};
  for (const Hypothesis& h : hypotheses()) {
    double c0 = 0, c1 = 0;
    if (!fit_one(h, sizes, seconds, c0, c1)) continue;
    bool usable = true;
    const double err = leave_one_out_smape(sizes, seconds, [&](const auto& n, const auto& t, double x) {
      double a = 0, b = 0;
      if (!fit_one(h, n, t, a, b)) {
        usable = false;
        return 0.0;
      }
      return a + b * term(h, x);
    });
    if (!usable) continue;
    // Strictly better only: on a tie the earlier (simpler) hypothesis stays.
    if (err < best.loo_smape - 1e-12)
      best = {h.exponent, h.log_power, c0, c1, err};
  }
  return best;
}

} // namespace perfcast::phase
