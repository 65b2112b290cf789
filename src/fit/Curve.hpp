#pragma once
// Two-coefficient curves y(n) for quantities that change with the process
// count (sends per process, message size, run time), fitted by linear least
// squares, and the choice among them by leave-one-out cross-validation.
#include <string>
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

struct CurveChoice {
  Curve curve;
  double loo_error = 0; ///< mean absolute relative error under leave-one-out (0 if not cross-validated)
  bool cross_validated = false;
};

/// Whether a curve stays positive for every n >= 2 and grows at most as
/// n^max_growth: linearly for a per-process count or size, quadratically for
/// a run's total (every pair of processes exchanging a fixed amount).
bool stays_positive(const Curve& curve, double max_growth = 1);

/// Fits every candidate form and keeps the one with the smallest leave-one-out
/// error (ties: the earlier candidate). With fewer than three points there is
/// nothing to validate on: `fallback` is fitted. With `positive`, forms whose
/// fit would turn non-positive at some n >= 1 are not kept (a Power fit is the
/// last resort); `max_growth` bounds the growth as in stays_positive.
CurveChoice choose_curve(const std::vector<double>& n, const std::vector<double>& y,
                         const std::vector<CurveForm>& candidates, CurveForm fallback, bool positive = false,
                         double max_growth = 1);

} // namespace perfcast
