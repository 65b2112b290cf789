#pragma once
// A phase's own time against input size, fitted as Extra-P does (Calotoiu et
// al., SC'13; ../shared/REFERENCE.md section 5): hypotheses
//   t(n) = c0 + c1 n^e log2(n)^k
// over a fixed set of exponents e and log powers k, and the constant t = c0
// (a phase of fixed work), each fitted by linear
// least squares, compared by leave-one-out cross-validation (SMAPE), the
// smallest error winning (ties: the simpler hypothesis). perfcast reports
// this fit beside the kernel match and answers with the better-validated
// of the two.
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
};

/// Fits every hypothesis to (size, seconds) pairs (at least three distinct
/// positive sizes) and returns the best under leave-one-out; times that do
/// not grow get the constant (their mean), never a falling model.
ScalingModel fit_scaling(const std::vector<double>& sizes, const std::vector<double>& seconds);

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

} // namespace perfcast::phase
