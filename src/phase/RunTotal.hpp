#pragma once
// From the phases' predicted times to the whole run's (eq. 4 and beyond).
// The paper extrapolates each phase's share of the run linearly and divides:
// T = sum t_P / sum r_P. A line leaves [0, 1] (miniMD's share rose from 79%
// to 88% over its small runs and was clamped at 1), so perfcast also carries
// the time outside the phases, the remainder R = T - sum t_P, by two bounded
// rules, and picks among the three by validation over the small runs, with
// each run's measured phase times standing in for the predicted ones (so the
// score judges only how the remainder is carried):
//   linear-shares  the paper's: shares on a least-squares line, clamped to
//                  (0, 1], scaled to 1 when they add up to more;
//   ratio-power    R / sum t_P as a power law of the size (a line in log-log),
//                  which keeps every share in (0, 1) at any size;
//   remainder-fit  R's own scaling fit (ScalingFit, as for the phases).
// Rules whose scores differ by less than the small runs' spread are not told
// apart by them: the run is then the mean of their answers.
#include "phase/ScalingFit.hpp"

#include <string>
#include <vector>

namespace perfcast::phase {

/// One rule's answer and its validation score.
struct TotalCandidate {
  std::string rule;      ///< "linear-shares", "ratio-power" or "remainder-fit"
  double total_s = 0;    ///< the run at the target size (0 when the rule cannot be used)
  double cv_smape = -1;  ///< validation SMAPE of the run's time (-1: not validated)
  std::string detail;    ///< the fitted form, or why the rule cannot be used
};

/// The chosen way to the run's time.
struct TotalForecast {
  std::vector<TotalCandidate> candidates; ///< in the order above
  int chosen = 0;                         ///< index into `candidates`: the best-scored
  std::vector<int> averaged;              ///< the rules whose answers were averaged (only `chosen` when one)
  double total_s = 0;
  std::vector<double> shares; ///< each phase's share of the run at the target size
  std::string why;
};

/// Predicts the run's time at `target` from the small runs (sorted by size,
/// at least three): `sizes`, their `totals`, each phase's times
/// (`phase_times[p][i]`, phase p at size i) and each phase's predicted time at
/// the target. Validation is forward with four runs or more (each of the two
/// largest from the runs below it), else leave-one-out; the smallest score
/// wins and ties go to the paper's linear shares, except that every rule
/// scored within `rule.spread` of the best takes part in a mean (not under
/// `rule.best_score`). `rule` also drives the remainder's own fit. Warnings
/// are appended.
TotalForecast predict_total(const std::vector<double>& sizes, const std::vector<double>& totals,
                            const std::vector<std::vector<double>>& phase_times,
                            const std::vector<double>& predicted_phase_s, double target,
                            std::vector<std::string>& warnings, const ScalingRule& rule = {});

} // namespace perfcast::phase
