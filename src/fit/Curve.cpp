#include "fit/Curve.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {

double Curve::operator()(double n) const
{
  switch (form) {
  case CurveForm::Constant: return a;
  case CurveForm::LogLinear: return a + b * std::log(n);
  case CurveForm::Inverse: return a + b / n;
  case CurveForm::Linear: return a + b * n;
  case CurveForm::Power: return a * std::pow(n, b);
  }
  return a;
}

std::string Curve::describe() const
{
  switch (form) {
  case CurveForm::Constant: return fmt::format("{:.6g}", a);
  case CurveForm::LogLinear: return fmt::format("{:.6g} + {:.6g} ln(n)", a, b);
  case CurveForm::Inverse: return fmt::format("{:.6g} + {:.6g} / n", a, b);
  case CurveForm::Linear: return fmt::format("{:.6g} + {:.6g} n", a, b);
  case CurveForm::Power: return fmt::format("{:.6g} n^{:.6g}", a, b);
  }
  return "";
}

std::string curve_form_name(CurveForm form)
{
  switch (form) {
  case CurveForm::Constant: return "constant";
  case CurveForm::LogLinear: return "log-linear";
  case CurveForm::Inverse: return "inverse";
  case CurveForm::Linear: return "linear";
  case CurveForm::Power: return "power";
  }
  return "?";
}

std::vector<CurveForm> all_curve_forms()
{
  return {CurveForm::Constant, CurveForm::LogLinear, CurveForm::Inverse, CurveForm::Linear, CurveForm::Power};
}

CurveForm curve_form_from_name(const std::string& name)
{
  for (CurveForm f : all_curve_forms())
    if (curve_form_name(f) == name)
      return f;
  throw Error(fmt::format("unknown curve form '{}' (expected constant, log-linear, inverse, linear or power)", name));
}

Curve fit_curve(CurveForm form, const std::vector<double>& n, const std::vector<double>& y)
{
  if (n.size() != y.size() || n.empty())
    throw Error("curve fit: expected as many values as process counts, at least one");
  Curve c;
  c.form = form;
  if (form == CurveForm::Constant || n.size() == 1) {
    double s = 0;
    for (double v : y)
      s += v;
    c.form = CurveForm::Constant;
    c.a = s / static_cast<double>(y.size());
    return c;
  }
  // y ~ a + b x with x = g(n) (or ln y ~ ln a + b ln n for the power form)
  std::vector<double> x(n.size()), t(y.size());
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (!(n[i] > 0))
      throw Error("curve fit: process counts must be positive");
    switch (form) {
    case CurveForm::LogLinear: x[i] = std::log(n[i]); t[i] = y[i]; break;
    case CurveForm::Inverse: x[i] = 1 / n[i]; t[i] = y[i]; break;
    case CurveForm::Linear: x[i] = n[i]; t[i] = y[i]; break;
    case CurveForm::Power:
      if (!(y[i] > 0))
        throw Error("curve fit: the power form needs positive values");
      x[i] = std::log(n[i]);
      t[i] = std::log(y[i]);
      break;
    case CurveForm::Constant: break;
    }
  }
  double m = static_cast<double>(x.size()), sx = 0, st = 0, sxx = 0, sxt = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    st += t[i];
    sxx += x[i] * x[i];
    sxt += x[i] * t[i];
  }
  double den = m * sxx - sx * sx;
  if (std::fabs(den) < 1e-300 * std::max(1.0, m * sxx)) {
    // all process counts equal: no slope can be told
    c.form = form == CurveForm::Power ? CurveForm::Power : form;
    c.b = 0;
    c.a = form == CurveForm::Power ? std::exp(st / m) : st / m;
    return c;
  }
  c.b = (m * sxt - sx * st) / den;
  double intercept = (st - c.b * sx) / m;
  c.a = form == CurveForm::Power ? std::exp(intercept) : intercept;
  return c;
}

bool stays_positive(const Curve& c, double max_growth)
{
  // from n = 2 on: a one-process run sends nothing, so s(1) and m(1) are never
  // used, and a count that saturates (a - b/n, the last rank of a pipeline
  // not sending) is 0 at n = 1
  switch (c.form) {
  case CurveForm::Constant: return c.a > 0;
  case CurveForm::LogLinear: return c.b >= 0 && c.a + c.b * std::log(2.0) > 0;
  case CurveForm::Inverse: return c.a > 0 && c.a + c.b / 2 > 0;
  case CurveForm::Linear: return c.b >= 0 && c.a + 2 * c.b > 0;
  // growing faster than n (a run's total: n^2), a count extrapolated 8 times
  // beyond the runs would explode: no fixed-size code sends more than
  // linearly more per process
  case CurveForm::Power: return c.a > 0 && c.b <= max_growth;
  }
  return false;
}

CurveChoice choose_curve(const std::vector<double>& n, const std::vector<double>& y,
                         const std::vector<CurveForm>& candidates, CurveForm fallback, bool positive,
                         double max_growth)
{
  CurveChoice best;
  auto last_resort = [&] {
    bool all_positive = std::all_of(y.begin(), y.end(), [](double v) { return v > 0; });
    if (!positive || !all_positive)
      return fit_curve(CurveForm::Constant, n, y);
    Curve c = fit_curve(CurveForm::Power, n, y);
    if (c.b > max_growth) {
      // the fastest growth allowed: y ~ a n^max_growth, a the geometric mean of y / n^max_growth
      double log_a = 0;
      for (std::size_t i = 0; i < n.size(); ++i)
        log_a += std::log(y[i]) - max_growth * std::log(n[i]);
      c = Curve{CurveForm::Power, std::exp(log_a / static_cast<double>(n.size())), max_growth};
    }
    return c;
  };
  if (n.size() < 3) {
    best.curve = fit_curve(fallback, n, y);
    if (positive && !stays_positive(best.curve, max_growth))
      best.curve = last_resort();
    return best;
  }
  bool any = false;
  for (CurveForm form : candidates) {
    double err = 0;
    bool ok = true;
    for (std::size_t out = 0; out < n.size() && ok; ++out) {
      std::vector<double> nn, yy;
      for (std::size_t i = 0; i < n.size(); ++i)
        if (i != out) {
          nn.push_back(n[i]);
          yy.push_back(y[i]);
        }
      try {
        Curve c = fit_curve(form, nn, yy);
        double pred = c(n[out]);
        double scale = std::max(std::fabs(y[out]), 1e-300);
        err += std::fabs(pred - y[out]) / scale;
        ok = std::isfinite(pred);
      } catch (const Error&) {
        ok = false;
      }
    }
    if (!ok)
      continue;
    if (positive) {
      try {
        if (!stays_positive(fit_curve(form, n, y), max_growth))
          continue;
      } catch (const Error&) {
        continue;
      }
    }
    err /= static_cast<double>(n.size());
    if (!any || err < best.loo_error) {
      any = true;
      best.loo_error = err;
      best.curve = fit_curve(form, n, y);
      best.cross_validated = true;
    }
  }
  if (!any)
    best.curve = positive ? last_resort() : fit_curve(fallback, n, y);
  return best;
}

} // namespace perfcast
