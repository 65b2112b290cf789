#pragma once
// Matching a program phase to a reference kernel and predicting it at a
// larger size: Escobar and Boppana, "Performance prediction of parallel
// applications based on small-scale executions"
// (../shared/papers/phase-kernel-prediction-escobar.txt), equations 1 to 4,
// the statistics of their Table IV and the selection cascade of Figure 4.
// Where the paper is vague, the reading is the one its own tables confirm
// (../shared/REFERENCE.md section 6):
//   sF_i   = n_i / f^-1(t_i)                       (eq. 1, per small size)
//   avSF   = mean(sF_i); sFCV = sd(sF_i) / avSF
//   SF_S   = least-squares line of sF_i on n_i, at the target S
//   PredDev = |SF_S - avSF| / avSF
//   e_i    = (f(n_i / avSF) - t_i) / t_i
//   AbsAM  = |mean(e_i)|, RMSE = sqrt(mean(e_i^2)), StdDev = sd(e_i)
//   t_P    = f(S / avSF)                           (eqs. 2 and 3)
//   T      = sum t_P / sum r_P                     (eq. 4)
// sd is the sample standard deviation (N - 1): with it RMSE^2 = AbsAM^2 +
// (N-1)/N StdDev^2 holds on every row of Table IV.
//
// Beyond the paper (SizeDims): eq. 1 divides a phase's size by a kernel's,
// which means something only when the two count the same thing. A phase
// sized in points a side of a 3-D grid against a kernel sized in matrix rows
// gives sF = n / K ~ n / n^3 (the rows grow as the points), a falling
// sFactor that PredDev refuses whatever the two compute. With dims declared
// (the phase's size n stands for n^p points, the kernel's K for K^k), sF is
// a ratio of points and the kernel's model f(K) is read as a function of its
// points P = K^k:
//   sF_i = n_i^p / f^-1(t_i)^k,  e_i = (f((n_i^p / avSF)^(1/k)) - t_i) / t_i,
//   t_P = f((S^p / avSF)^(1/k)),
// while SF_S stays on the line of sF_i against the sizes as given, n_i, at S:
// the paper's extrapolation over the paper's span. A line against n_i^p
// would reach from the small runs to S^p, for a target twice the largest
// small size about three times as far (p = 3) relative to the runs' spread,
// and the same drift of sF would read as a PredDev about three times as
// large against the paper's threshold of 0.5, calibrated on sizes as given.
// p = k = 1 is the paper's eq. 1 on the sizes as given, exactly.
#include "phase/KernelModel.hpp"

#include <string>
#include <vector>

namespace perfcast::phase {

/// A phase's time in one small run.
struct PhaseSample {
  double size = 0;
  double seconds = 0;
};

/// How sizes are compared in eq. 1: a phase's size n stands for n^phase
/// points and a kernel's size K for K^kernel points (each 1 to 3); {1, 1} is
/// the paper's eq. 1 on the sizes as given.
struct SizeDims {
  int phase = 1;
  int kernel = 1;
  bool operator==(const SizeDims&) const = default;
};

/// How well one kernel follows one phase over the small runs (a row of Table IV).
struct MatchStats {
  std::string kernel;
  SizeDims dims;                ///< the units sF is formed in
  std::vector<double> sfactors; ///< sF_i, one per small run (phase points per kernel point)
  std::vector<double> errors;   ///< e_i, relative, one per small run
  double av_sf = 0;
  double sf_cv = 0;
  double sf_at_target = 0; ///< SF_S
  double pred_dev = 0;
  double abs_am = 0;
  double rmse = 0;
  double std_dev = 0;
  double kernel_size = 0;   ///< (S^p / avSF)^(1/k): the kernel size the target maps to, in the kernel's own unit
  double supported_max = 0; ///< the kernel model's supported_max_size()
  bool in_range = true;     ///< kernel_size <= supported_max: only then can the cascade choose it
};

/// Table IV's statistics of `kernel` against a phase's small runs (at least
/// two, distinct sizes), for the target size `target_size`, with sizes
/// compared in the units `dims` (the paper's by default).
MatchStats match_phase(const std::vector<PhaseSample>& runs, const KernelModel& kernel, double target_size,
                       SizeDims dims = {});

/// Thresholds of the selection cascade (Figure 4 and Table III). Beyond the
/// paper, a kernel whose model would be used past what was measured (the
/// target maps beyond its supported_max_size()) is not eligible either: its
/// prediction would be its end segment's power law, a two-point
/// extrapolation, not a measured kernel (miniFE's cg_solve matched ptran at
/// 13x its largest measured order).
struct CascadeRule {
  double abs_am_max = 0.5;   ///< AbsAM must stay below this
  double pred_dev_max = 0.5; ///< PredDev must stay below this
  int top = 5;               ///< then the top this many by RMSE, by StdDev and by sFCV
};

/// A candidate's standing in the cascade.
struct Standing {
  bool eligible = false; ///< passed both thresholds and the kernel's measured range
  int rmse_rank = 0;     ///< 1-based among the eligible; 0 when not eligible
  int std_dev_rank = 0;
  int sf_cv_rank = 0;
  bool in_all_tops = false; ///< within `top` in all three rankings
};

/// The cascade's outcome over all candidates.
struct Selection {
  std::vector<Standing> standings; ///< one per candidate, in the order given
  int chosen = -1;                 ///< index of the chosen candidate, -1 when none is eligible
  std::string reason;              ///< why this one (or why none)
  /// The kernel the small runs alone would choose (the cascade on AbsAM and
  /// the ranks, without PredDev and the range, the statistics that depend on
  /// the target); -1 when none. Where it is not `chosen`, `reason` says what
  /// the target refused it for.
  int shape_best = -1;
};

/// Runs the cascade. The paper leaves ties and disagreement open; perfcast's
/// rule: among candidates in the top `top` of all three rankings, the
/// smallest sum of the three ranks wins; if none is in all three, the
/// smallest rank sum among the eligible; ties go to the smaller RMSE, then to
/// the kernel name.
Selection select_kernel(const std::vector<MatchStats>& candidates, const CascadeRule& rule = {});

/// The phase's predicted time at `target_size`: f(S / avSF) (eq. 3), in the
/// units the match was made in.
double predict_phase_seconds(const MatchStats& match, const KernelModel& kernel, double target_size);

/// A phase's share of the run at `target_size`: the least-squares line
/// through the small runs' shares (each in (0, 1]) against their sizes,
/// clamped to (0, 1].
double extrapolate_share(const std::vector<double>& sizes, const std::vector<double>& shares, double target_size);

/// The whole run's predicted time from its phases' times and shares (eq. 4).
double predict_total_seconds(const std::vector<double>& phase_seconds, const std::vector<double>& phase_shares);

/// Value of the least-squares line through (x_i, y_i) at `x` (at least two
/// distinct x).
double linear_fit_at(const std::vector<double>& xs, const std::vector<double>& ys, double x);

} // namespace perfcast::phase
