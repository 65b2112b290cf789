#include "phase/RunTotal.hpp"

#include "core/Error.hpp"
#include "phase/Matching.hpp"
#include "phase/ScalingFit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <fmt/format.h>

namespace perfcast::phase {
namespace {

/// The small runs a rule learns from, and the phases' time where it predicts.
struct Training {
  std::vector<double> sizes, totals;
  std::vector<std::vector<double>> phase_times; ///< [phase][run]
  double phase_sum(std::size_t run) const {
    double s = 0;
    for (const auto& p : phase_times) s += p[run];
    return s;
  }
};

/// A rule: the run's time at `x` given the phases' summed time there, with
/// the per-phase shares at `x` (given the phases' times there) and a
/// description; throws Error when the training runs do not allow it.
struct Answer {
  double total = 0;
  std::string detail;
};
using Rule = std::function<Answer(const Training&, double x, double phases_at_x)>;

Answer linear_shares(const Training& t, double x, double phases_at_x) {
  double sum = 0;
  for (const auto& times : t.phase_times) {
    std::vector<double> shares;
    for (std::size_t i = 0; i < times.size(); ++i) shares.push_back(std::min(1.0, times[i] / t.totals[i]));
    sum += extrapolate_share(t.sizes, shares, x);
  }
  // Shares past the whole run are scaled to fill it (the phases are the run).
  return {phases_at_x / std::min(1.0, sum), fmt::format("phases' shares add up to {:.3f}", sum)};
}

/// Least-squares line y = a + b x.
std::pair<double, double> line(const std::vector<double>& xs, const std::vector<double>& ys) {
  const double n = static_cast<double>(xs.size());
  const double mx = std::accumulate(xs.begin(), xs.end(), 0.0) / n;
  const double my = std::accumulate(ys.begin(), ys.end(), 0.0) / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) * (xs[i] - mx);
  }
  if (!(sxx > 0)) throw Error("one distinct size (expected at least two to fit a line)");
  return {my - sxy / sxx * mx, sxy / sxx};
}

/// The remainder at each training run; throws when the phases hold a whole run.
std::vector<double> remainders(const Training& t) {
  std::vector<double> r;
  for (std::size_t i = 0; i < t.sizes.size(); ++i) {
    r.push_back(t.totals[i] - t.phase_sum(i));
    if (!(r.back() > 0))
      throw Error(fmt::format("no time outside the phases at size {:g} (expected some)", t.sizes[i]));
  }
  return r;
}

Answer ratio_power(const Training& t, double x, double phases_at_x) {
  const std::vector<double> r = remainders(t);
  std::vector<double> log_n, log_q;
  for (std::size_t i = 0; i < r.size(); ++i) {
    log_n.push_back(std::log(t.sizes[i]));
    log_q.push_back(std::log(r[i] / t.phase_sum(i)));
  }
  const auto [a, b] = line(log_n, log_q);
  const double q = std::exp(a + b * std::log(x));
  return {phases_at_x * (1 + q), fmt::format("remainder / phases = {:.4g} n^{:.3g}", std::exp(a), b)};
}

Answer remainder_fit(const Training& t, double x, double phases_at_x, const ScalingRule& rule) {
  const ScalingModel m = fit_scaling(t.sizes, remainders(t), rule);
  return {phases_at_x + std::max(0.0, m(x)), "remainder = " + m.describe()};
}

std::string score_text(double s) { return s < 0 ? "not validated" : fmt::format("{:.1f}%", 100 * s); }

} // namespace

TotalForecast predict_total(const std::vector<double>& sizes, const std::vector<double>& totals,
                            const std::vector<std::vector<double>>& phase_times,
                            const std::vector<double>& predicted_phase_s, double target,
                            std::vector<std::string>& warnings, const ScalingRule& rule) {
  if (sizes.size() < 3 || totals.size() != sizes.size() || phase_times.empty() ||
      phase_times.size() != predicted_phase_s.size())
    throw Error(fmt::format("{} sizes, {} totals, {} phases and {} predictions (expected at least three runs, "
                            "a total per run and a prediction per phase)",
                            sizes.size(), totals.size(), phase_times.size(), predicted_phase_s.size()));
  for (const auto& p : phase_times)
    if (p.size() != sizes.size()) throw Error("a phase lacks a time at some size (expected one per run)");
  const Training all{sizes, totals, phase_times};
  const double phases_at_target = std::accumulate(predicted_phase_s.begin(), predicted_phase_s.end(), 0.0);
  const bool forward = sizes.size() >= 4;
  const std::vector<std::pair<std::string, Rule>> rules = {
      {"linear-shares", linear_shares}, {"ratio-power", ratio_power}, {"remainder-fit", [&rule](const Training& t, double x, double phases_at_x) {
         return remainder_fit(t, x, phases_at_x, rule);
       }}};

  TotalForecast out;
  for (const auto& [name, rule] : rules) {
    TotalCandidate c;
    c.rule = name;
    try {
      const Answer a = rule(all, target, phases_at_target);
      c.total_s = a.total;
      c.detail = a.detail;
    } catch (const Error& e) {
      c.detail = e.what();
      out.candidates.push_back(c);
      continue;
    }
    // Each held-out run is predicted from the runs learnt, with its own
    // measured phase times in place of the phases' predictions.
    bool failed = false;
    const auto held_out = [&](const std::vector<double>& n, const std::vector<double>& t, double x) {
      Training part;
      part.sizes = n;
      part.totals = t;
      part.phase_times.assign(phase_times.size(), {});
      double phases_at_x = 0;
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const bool learnt = std::find(n.begin(), n.end(), sizes[i]) != n.end();
        for (std::size_t p = 0; p < phase_times.size(); ++p) {
          if (learnt) part.phase_times[p].push_back(phase_times[p][i]);
          if (sizes[i] == x) phases_at_x += phase_times[p][i];
        }
      }
      try {
        return rule(part, x, phases_at_x).total;
      } catch (const Error&) {
        failed = true;
        return 0.0;
      }
    };
    const double score = forward ? forward_smape(sizes, totals, held_out) : leave_one_out_smape(sizes, totals, held_out);
    c.cv_smape = failed ? -1 : score;
    out.candidates.push_back(c);
  }

  // The smallest score among the validated; ties (and no validated rule) go
  // to the paper's linear shares, which always answers.
  out.chosen = 0;
  for (std::size_t i = 1; i < out.candidates.size(); ++i) {
    const TotalCandidate& c = out.candidates[i];
    const TotalCandidate& best = out.candidates[out.chosen];
    if (c.cv_smape >= 0 && c.total_s > 0 && (best.cv_smape < 0 || c.cv_smape + 1e-9 < best.cv_smape))
      out.chosen = static_cast<int>(i);
  }
  // Rules scored within the runs' spread of the best are not told apart by
  // the small runs, and no rule is simpler than another: their mean answers
  // (equal weights, as in forecast combination).
  const TotalCandidate& best = out.candidates[out.chosen];
  out.averaged = {out.chosen};
  if (!rule.best_score && rule.spread > 0 && best.cv_smape >= 0)
    for (std::size_t i = 0; i < out.candidates.size(); ++i) {
      const TotalCandidate& c = out.candidates[i];
      if (static_cast<int>(i) != out.chosen && c.cv_smape >= 0 && c.total_s > 0 &&
          c.cv_smape <= best.cv_smape + rule.spread + 1e-12)
        out.averaged.push_back(static_cast<int>(i));
    }
  std::sort(out.averaged.begin(), out.averaged.end());
  double sum = 0;
  std::vector<std::string> names;
  for (int i : out.averaged) {
    sum += out.candidates[i].total_s;
    names.push_back(out.candidates[i].rule);
  }
  out.total_s = sum / static_cast<double>(out.averaged.size());
  std::string scores;
  for (const TotalCandidate& c : out.candidates)
    scores += fmt::format("{}{} {}", scores.empty() ? "" : ", ", c.rule, score_text(c.cv_smape));
  if (out.averaged.size() == 1)
    out.why = fmt::format("{} ({}); {} SMAPE of the run: {}", best.rule, best.detail, forward ? "forward" : "leave-one-out",
                          scores);
  else
    out.why = fmt::format("the mean of {} (scored within the runs' spread {:.2g}% of the best, {}: not told apart); "
                          "{} SMAPE of the run: {}",
                          fmt::join(names, ", "), 100 * rule.spread, best.rule, forward ? "forward" : "leave-one-out",
                          scores);

  // Each phase's share of the predicted run: the extrapolated (scaled)
  // shares under the paper's rule, else the phase's time over the run's.
  if (out.averaged == std::vector<int>{0}) {
    double sum = 0;
    for (const auto& times : phase_times) {
      std::vector<double> s;
      for (std::size_t i = 0; i < times.size(); ++i) s.push_back(std::min(1.0, times[i] / totals[i]));
      out.shares.push_back(extrapolate_share(sizes, s, target));
      sum += out.shares.back();
    }
    if (sum > 1.005)
      warnings.push_back(fmt::format("the phases' extrapolated shares add up to {:.3f}; scaled to 1", sum));
    if (sum > 1)
      for (double& s : out.shares) s /= sum;
  } else {
    for (double t : predicted_phase_s) out.shares.push_back(t / out.total_s);
  }
  return out;
}

} // namespace perfcast::phase
