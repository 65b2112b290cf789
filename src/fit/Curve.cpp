#include "fit/Curve.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace perfcast {

PowerFit fit_power(const std::vector<std::pair<double, double>>& xy, double lo, double hi, double fallback)
{
  PowerFit f;
  std::set<double> xs;
  for (const auto& [x, y] : xy)
    xs.insert(x);
  f.k = fallback;
  if (xs.size() >= 2) {
    double m = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : xy) {
      double lx = std::log(x), ly = std::log(y);
      m += 1, sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    f.k = std::clamp((m * sxy - sx * sy) / (m * sxx - sx * sx), lo, hi);
  }
  double log_c = 0;
  for (const auto& [x, y] : xy)
    log_c += std::log(y) - f.k * std::log(x);
  log_c /= static_cast<double>(xy.size());
  f.c = std::exp(log_c);
  for (const auto& [x, y] : xy)
    f.error += std::pow(std::log(y) - log_c - f.k * std::log(x), 2);
  return f;
}

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

Curve fit_scaled(const Curve& shape, const std::vector<double>& n, const std::vector<double>& y)
{
  if (n.size() != y.size() || n.empty())
    throw Error("curve fit: expected as many values as process counts, at least one");
  // y = c g(n): c = sum g y / sum g^2
  double gy = 0, gg = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (!(n[i] > 0))
      throw Error("curve fit: process counts must be positive");
    gy += shape(n[i]) * y[i];
    gg += shape(n[i]) * shape(n[i]);
  }
  if (!(gg > 0) || !std::isfinite(gg))
    throw Error(fmt::format("curve fit: the shape {} is 0 at every count", shape.describe()));
  double c = gy / gg;
  Curve out = shape;
  out.a *= c;
  if (shape.form != CurveForm::Power)
    out.b *= c;
  return out;
}

std::vector<Curve> shapes_zero_at_one(bool with_proportional)
{
  // n first: on counts 2 and 4 it and ln n are in the same ratio (2), and a
  // fixed amount per process is the commoner code than a total growing as ln n
  std::vector<Curve> shapes;
  if (with_proportional)
    shapes.push_back({CurveForm::Power, 1, 1});
  for (const Curve& c : {Curve{CurveForm::LogLinear, 0, 1}, Curve{CurveForm::Inverse, 1, -1},
                         Curve{CurveForm::Linear, -1, 1}})
    shapes.push_back(c);
  return shapes;
}

CurveChoice choose_curve(const std::vector<double>& n, const std::vector<double>& y,
                         const std::vector<CurveForm>& candidates, CurveForm fallback, bool positive,
                         double max_growth, const std::vector<Curve>& shapes,
                         const std::function<bool(const Curve&)>& admissible)
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
  // a candidate: a free form, or a known shape scaled (one coefficient)
  struct Candidate {
    CurveForm form;
    const Curve* shape;
    std::size_t coefficients;
  };
  std::vector<Candidate> tried;
  for (CurveForm form : candidates)
    tried.push_back({form, nullptr, form == CurveForm::Constant ? 1u : 2u});
  for (const Curve& shape : shapes)
    tried.push_back({shape.form, &shape, 1});
  auto fit = [](const Candidate& c, const std::vector<double>& nn, const std::vector<double>& yy) {
    return c.shape != nullptr ? fit_scaled(*c.shape, nn, yy) : fit_curve(c.form, nn, yy);
  };
  bool any = false;
  for (const Candidate& cand : tried) {
    // leave-one-out needs a point beside the fitted coefficients; without
    // shapes, two points validate nothing (as before shapes existed)
    if (n.size() < cand.coefficients + 1 || (n.size() < 3 && shapes.empty()))
      continue;
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
        Curve c = fit(cand, nn, yy);
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
    Curve whole;
    try {
      whole = fit(cand, n, y);
    } catch (const Error&) {
      continue;
    }
    if ((positive && !stays_positive(whole, max_growth)) || (admissible && !admissible(whole)))
      continue;
    err /= static_cast<double>(n.size());
    if (!any || err < best.loo_error) {
      any = true;
      best.loo_error = err;
      best.curve = whole;
      best.cross_validated = true;
    }
  }
  if (!any && n.size() < 3) {
    // nothing to validate on: the fallback, when it stays positive
    best.curve = fit_curve(fallback, n, y);
    if (positive && !stays_positive(best.curve, max_growth))
      best.curve = last_resort();
  } else if (!any) {
    best.curve = positive ? last_resort() : fit_curve(fallback, n, y);
  }
  return best;
}

} // namespace perfcast
