#pragma once
// A phase's own time against input size, fitted as Extra-P does (Calotoiu et
// al., SC'13; ../shared/REFERENCE.md section 5): hypotheses
//   t(n) = c0 + c1 n^e log2(n)^k
// over a fixed set of exponents e and log powers k, and the constant t = c0
// (a phase of fixed work), each fitted by least squares and scored by
// leave-one-out cross-validation (SMAPE). perfcast reports this fit beside
// the kernel match and answers with the better-validated of the two.
//
// Beyond Extra-P, the choice does not take what the small runs
// cannot tell apart (docs/phases.md, "The phase's own scaling"): the fits
// weigh relative residuals; a log factor is a hypothesis only when it bends
// the curve over the measured sizes by at least the runs' spread; and among
// the forms scored within the spread (or one standard error) of the best,
// the simplest answers. `ScalingChoice::best_score` keeps the plain rule
// (least squares on seconds, the smallest score wins).
#include <functional>
#include <string>
#include <vector>

namespace perfcast::phase {

/// One hypothesis and its fitted coefficients.
struct ScalingModel {
  double exponent = 0; ///< e
  int log_power = 0;   ///< k
  double c0 = 0, c1 = 0;
  double loo_smape = 0; ///< mean symmetric absolute percentage error under leave-one-out, in [0, 2]
  /// Time at size n.
  double operator()(double n) const;
  /// "1.2e-3 + 4.5e-9 n^3 log2(n)" and the like.
  std::string describe() const;
  /// The form alone: "n^3 log2(n)", "constant".
  std::string form() const;
};

/// How the form is chosen among the hypotheses.
struct ScalingRule {
  /// The small runs' run-to-run spread, (largest - smallest) / smallest of a
  /// size's repeats (the median over the sizes); 0 when not measured.
  double spread = 0;
  /// The plain Extra-P rule: least squares on seconds, every log power, the
  /// smallest leave-one-out SMAPE (ties: the simpler).
  bool best_score = false;
};

/// Which way a measured series goes over its sizes.
enum class Direction { falling, flat, growing };

/// The direction of a series and what it was judged by. The least-squares
/// line through (ln n, ln t) gives the change over the sizes' span, exp(b ln
/// (n_max / n_min)) - 1; the series grows (falls) when that change passes
/// +noise (-noise), where noise is the runs' spread (the range of a size's
/// repeats: a change a size's own repeats could make), or, when no repeats
/// were measured, twice the relative RMS residual about the line.
struct SeriesTrend {
  Direction direction = Direction::flat;
  double slope = 0;  ///< b, the log-log line's slope (the series' growth exponent)
  double change = 0; ///< relative change over the span, as the log-log line reads it
  double noise = 0;  ///< what the change is compared against
  std::string describe() const; ///< "grows 112% over the sizes (noise 6%)"
};

SeriesTrend series_trend(const std::vector<double>& sizes, const std::vector<double>& seconds, double spread);

/// The outcome of the search, with what it could not tell apart.
struct ScalingChoice {
  ScalingModel chosen;
  ScalingModel best_scored;           ///< the smallest leave-one-out SMAPE among the hypotheses searched
  std::vector<ScalingModel> admitted; ///< every form within `tolerance` of the best (the chosen among them)
  double tolerance = 0;               ///< max(spread, standard error of the best score); 0 under best_score
  int max_log_power = 2;              ///< log powers searched, bounded by the span
  std::vector<double> log_departure;  ///< how far log2(n)^k (k = 1, 2) bends from a power law over the sizes
  SeriesTrend trend;                  ///< the series' direction; a growing one admits no constant
  std::string why;
};

/// Searches the hypotheses for (size, seconds) pairs (at least three
/// distinct positive sizes); times that do not grow get the constant (their
/// mean), never a falling model. A form is admissible only where it follows
/// the series: every form is c0 + c1 term(n) with c0, c1 >= 0 (a part that
/// does not grow and one that does; where least squares gives c0 < 0 the
/// form is refitted through the origin), and a series that grows beyond its
/// noise (series_trend) does not admit the constant. Under best_score the
/// plain Extra-P search runs, without these rules.
ScalingChoice choose_scaling(const std::vector<double>& sizes, const std::vector<double>& seconds,
                             const ScalingRule& rule = {});

/// The chosen model alone (choose_scaling).
ScalingModel fit_scaling(const std::vector<double>& sizes, const std::vector<double>& seconds,
                         const ScalingRule& rule = {});

/// The largest relative departure of log2(n)^k from the power law closest to
/// it (least squares in log-log) over `sizes`: how much a log factor bends a
/// curve over the measured span.
double log_departure(const std::vector<double>& sizes, int log_power);

/// Leave-one-out SMAPE of any prediction rule: for each small run i, `rule`
/// gets the other runs' sizes and times and the size of run i, and answers
/// its time.
double leave_one_out_smape(
    const std::vector<double>& sizes, const std::vector<double>& seconds,
    const std::function<double(const std::vector<double>&, const std::vector<double>&, double)>& rule);

/// Forward (extrapolating) validation of any prediction rule: for each of
/// the last `folds` runs, by increasing size, the rule gets every smaller run
/// and answers the run's time; the mean SMAPE. Runs must be sorted by size,
/// and each fold keeps at least `min_train` runs to learn from (folds that
/// cannot are skipped; -1 when none is left).
double forward_smape(
    const std::vector<double>& sizes, const std::vector<double>& seconds,
    const std::function<double(const std::vector<double>&, const std::vector<double>&, double)>& rule, int folds = 2,
    int min_train = 3);

/// The median of the small sizes' spreads (0 for none): the noise ScalingRule
/// and the predictor compare scores against.
double median_spread(std::vector<double> spreads);

} // namespace perfcast::phase
