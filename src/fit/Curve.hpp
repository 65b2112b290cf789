#pragma once
// Two-coefficient curves y(n) for quantities that change with the process
// count (sends per process, message size, run time), fitted by linear least
// squares, and the choice among them by leave-one-out cross-validation.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace perfcast {

enum class CurveForm {
  Constant,   ///< a
  LogLinear,  ///< a + b ln n   (Saad et al.'s s(n) = C ln n + D)
  Inverse,    ///< a + b / n    (Saad et al.'s m(n) = m_a / n + m_b)
  Linear,     ///< a + b n
  Power,      ///< a n^b        (Saad et al.'s m(n) = A n^-B)
};

struct Curve {
  CurveForm form = CurveForm::Constant;
  double a = 0, b = 0;
  double operator()(double n) const;
  /// "12.5 + 3.2 ln(n)" and the like.
  std::string describe() const;
};

/// Name of a form ("log-linear", ...), and back; throws Error for an unknown name.
std::string curve_form_name(CurveForm form);
CurveForm curve_form_from_name(const std::string& name);
std::vector<CurveForm> all_curve_forms();

/// Least-squares fit of one form; Power needs positive ys (throws Error otherwise).
Curve fit_curve(CurveForm form, const std::vector<double>& n, const std::vector<double>& y);

/// c x^k through points (x, y > 0) by least squares in logs, k within [lo, hi] (`fallback` when the xs are
/// one value); error is the sum of squared log residuals.
struct PowerFit {
  double c = 0, k = 0, error = 0;
};
PowerFit fit_power(const std::vector<std::pair<double, double>>& xy, double lo, double hi, double fallback);

struct CurveChoice {
  Curve curve;
  double loo_error = 0; ///< mean absolute relative error under leave-one-out (0 if not cross-validated)
  bool cross_validated = false;
};

/// Whether a curve stays positive for every n >= 2 and grows at most as
/// n^max_growth: linearly for a per-process count or size, quadratically for
/// a run's total (every pair of processes exchanging a fixed amount).
bool stays_positive(const Curve& curve, double max_growth = 1);

/// Least-squares fit of c x shape(n), the shape's coefficients scaled by one factor c.
Curve fit_scaled(const Curve& shape, const std::vector<double>& n, const std::vector<double>& y);

/// The shapes held to 0 at n = 1 (ln n, 1 - 1/n, n - 1), after n itself when
/// `with_proportional` (a run's total when every process sends the same).
std::vector<Curve> shapes_zero_at_one(bool with_proportional);

/// Fits every candidate form and keeps the one with the smallest leave-one-out
/// error (ties: the earlier candidate). A form is validated only with more
/// points than its free coefficients: with fewer than three points, `fallback`
/// is fitted, unless `shapes` are given: those (one coefficient, the scale of
/// a known shape, see fit_scaled) and the constant then compete from two
/// points on, the two-coefficient forms from three. With `positive`, forms
/// whose fit would turn non-positive at some n >= 2 are not kept (a Power fit
/// is the last resort); `max_growth` bounds the growth as in stays_positive.
/// A candidate whose fit on every point fails `admissible` (when given) is not
/// kept either: a caller's bounds on a form's coefficients.
CurveChoice choose_curve(const std::vector<double>& n, const std::vector<double>& y,
                         const std::vector<CurveForm>& candidates, CurveForm fallback, bool positive = false,
                         double max_growth = 1, const std::vector<Curve>& shapes = {},
                         const std::function<bool(const Curve&)>& admissible = {});

} // namespace perfcast
