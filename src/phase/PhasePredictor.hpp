#pragma once
// From small runs to a prediction at a large size (Escobar and Boppana,
// section III-C, with perfcast's additions): for each phase, every kernel of
// the database is matched (Table IV), the cascade picks one, and the phase
// is predicted through it (eq. 3); beside it, the phase's own scaling fit
// (ScalingFit). Both are scored by forward validation over the small runs
// (each of the two largest predicted from the smaller ones: the question a
// prediction at a larger size asks; leave-one-out when there are too few
// runs) and the better-scored answers, with the reason; when the two scores
// differ by less than the small runs' spread they are not told apart and
// their mean answers. The run's time
// follows from the phases' by eq. 4 or by a bounded rule for the time
// outside the phases, chosen by validation (RunTotal).
#include "phase/KernelModel.hpp"
#include "phase/Matching.hpp"
#include "phase/RunTotal.hpp"
#include "phase/ScalingFit.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfcast::phase {

/// One small run: its size, its total time, and each phase's time.
struct SizeRun {
  double size = 0;
  double total_seconds = 0;
  std::map<std::string, double> phase_seconds;
  double spread = -1; ///< (largest - smallest) / smallest of the size's repeated runs; -1 when not repeated
  /// Each phase's own spread over the size's repeats, the same way from its
  /// seconds (absent when not recorded: the run's spread stands for it).
  std::map<std::string, double> phase_spread;
  double hz = 0; ///< the sampler's rate, samples per second per rank (0: unknown)
};

/// The fewest samples per rank a phase needs at every small size to be
/// predicted on its own: a phase's count of timer samples varies about as
/// sqrt(N) / N = 10% at N = 100, the goal, before any extrapolation.
constexpr double kMinPhaseSamples = 100;

/// The largest validation error (SMAPE over the small runs held out) of a
/// method that may answer for a phase. Held out inside the series, a method
/// is asked less than at a target beyond it; one that misses by more than
/// 20% there, the error above which a prediction must carry a warning, is
/// not expected to do better at the target.
constexpr double kValidationLimit = 0.2;

/// One repeated run of a small size: seconds per rank of the run and of each phase.
struct RepeatTimes {
  double total_seconds = 0;
  std::map<std::string, double> phase_seconds;
};

/// A small size from its repeated runs: the run's time and each phase's at
/// its own median over the repeats (the mean of the middle two for an even
/// count), each with its own spread. The median run by total is not the
/// phase's median: at miniMD's size 23 it held the phase's
/// largest time of three, 6.8% apart where the totals were 3.2% apart.
SizeRun size_run_from_repeats(double size, const std::vector<RepeatTimes>& repeats,
                              const std::vector<std::string>& phases);

/// How the small runs' noise carries to the target through a power law
/// fitted to them (a line in log-log by least squares): a point's relative
/// noise sigma becomes sigma * G at the target, with G = sqrt(1/N + (ln S -
/// mean ln n)^2 / sum (ln n - mean ln n)^2), the standard error of a
/// regression line's prediction. With sigma taken as half the spread of a
/// size's repeats, `spread` * G is about two standard errors: the least the
/// answer is uncertain by, before any choice of form. It grows as the span
/// of the sizes shrinks: four sizes 62 to 74 (1.19x) carry 2x as 5.9x their
/// noise, 18 to 27 (1.5x) as 3.0x.
double extrapolation_noise(const std::vector<double>& sizes, double target, double spread);

/// The largest target / largest small size that `sizes` carry within `bound`
/// (extrapolation_noise <= bound); 1 when not even the largest size does.
double supported_factor(const std::vector<double>& sizes, double spread, double bound = 0.1);

/// The smallest factor R of a geometric ladder of `count` sizes that carries
/// `factor` past its largest within `bound`; 0 when no ladder of that many
/// sizes does (the spread is too large: more repeats, or more sizes).
double geometric_step_for(int count, double factor, double spread, double bound = 0.1);

/// The prediction of one phase.
struct PhaseForecast {
  std::string name;
  std::vector<MatchStats> candidates; ///< every kernel's statistics, in database order
  Selection selection;                ///< the cascade's outcome over `candidates`
  std::optional<double> kernel_s;     ///< through the chosen kernel (none when no kernel is eligible)
  double kernel_cv_smape = -1;        ///< validation score (SMAPE) of the kernel prediction (-1: none)
  ScalingModel own_fit;               ///< the phase's own scaling fit
  ScalingModel own_fit_best_scored;   ///< the form with the smallest leave-one-out score (Extra-P's choice)
  std::string own_fit_why;            ///< why that form
  double own_fit_s = 0;
  double own_fit_low_s = 0, own_fit_high_s = 0; ///< the range at the target of the forms the runs cannot tell apart
  double own_fit_cv_smape = 0;        ///< validation score (SMAPE) of the own fit
  std::string validation;             ///< "forward" or "leave-one-out"
  double predicted_s = 0; ///< the answer: the better-scored of the two
  /// "kernel", "own-fit", "combined" (their mean), "trend" (the own fit where
  /// neither validated) or "remainder-share" (a thinly sampled phase carried
  /// with the time outside the phases)
  std::string method;
  std::string why;        ///< why that one
  double share = 0;       ///< share of the predicted run at the target size
  /// The noise its scores are compared against: the median over the small
  /// sizes of the phase's own spread (the run's when not recorded).
  double spread = 0;
  double samples_per_rank = -1; ///< the fewest samples per rank at a small size (-1: the rate is unknown)
  /// False when neither the kernel nor the own fit validated within
  /// kValidationLimit: `predicted_s` is then the phase's measured trend (its
  /// own fit) and [low_s, high_s] spans what the methods give at the target.
  bool validated = true;
  double low_s = 0, high_s = 0; ///< the band at the target (both `predicted_s` when validated)
};

/// How eq. 1 compares the application's size with each kernel's (beyond the
/// paper; Matching's SizeDims): `phase_dim` 0 is the paper's eq. 1 on the
/// sizes as given; D in 1 to 3 counts a size n of the application as n^D
/// points and kernel i's size K as K^kernel_dims[i].
struct SizeUnits {
  int phase_dim = 0;
  std::vector<int> kernel_dims; ///< one per kernel, in the order of the kernels (unused at phase_dim 0)
};

/// How the predictor chooses where the small runs' scores are close.
enum class Choice {
  within_spread, ///< what the runs' spread cannot separate: the simplest form, or the mean
  best_score,    ///< the smallest score always wins
};

/// The whole prediction.
struct RunForecast {
  double size = 0;
  double predicted_s = 0;
  SizeUnits units; ///< how the sizes were compared
  Choice choice = Choice::within_spread;
  double spread = 0; ///< the median of the small sizes' spreads of the run, the noise the run's rules are compared against
  std::vector<PhaseForecast> phases;
  TotalForecast total; ///< how the phases' times became the run's
  std::vector<std::string> warnings;
};

/// Predicts the run at `target_size` from small runs (at least three sizes,
/// each with every phase named in `phases`) and the kernels' models, with
/// sizes compared in `units` (the paper's by default) and close scores
/// settled by `choice`.
RunForecast predict_run(const std::vector<SizeRun>& runs, const std::vector<std::string>& phases,
                        const std::vector<KernelModel>& kernels, double target_size, const CascadeRule& rule = {},
                        const SizeUnits& units = {}, Choice choice = Choice::within_spread);

} // namespace perfcast::phase
