#include "appmodel/Law.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace perfcast {

namespace {

struct Candidate {
  LawVariable variable;
  CurveForm form;
  bool scaled = false; ///< one coefficient: a x^exponent, the exponent fixed
  double exponent = 0;
};

// In order of preference: a tie goes to the earlier one. One-coefficient laws come first: a constant, traffic to a
// neighbour proportional to the face it crosses (a fixed domain cut finer), work shared by the n processes; then
// the two-coefficient forms. For traffic to a grid neighbour the face's area comes before n, in either group: on
// the grids of 2, 4 and 8 processes A and 1/n can agree, and the face is what a decomposition sends (a + b A: the
// face's cells and a fixed part, such as a halo's corners).
std::vector<Candidate> candidates(bool with_area)
{
  std::vector<Candidate> list = {{LawVariable::Procs, CurveForm::Constant}};
  if (with_area)
    list.push_back({LawVariable::Area, CurveForm::Power, true, 1});
  list.push_back({LawVariable::Procs, CurveForm::Power, true, -1});
  if (with_area) {
    list.push_back({LawVariable::Area, CurveForm::Power});
    list.push_back({LawVariable::Area, CurveForm::Linear});
  }
  for (CurveForm f : {CurveForm::Power, CurveForm::Inverse, CurveForm::Linear, CurveForm::LogLinear})
    list.push_back({LawVariable::Procs, f});
  return list;
}

double x_of(LawVariable v, const LawPoint& p) { return v == LawVariable::Procs ? p.procs : p.area; }

int coefficients(const Candidate& c) { return c.form == CurveForm::Constant || c.scaled ? 1 : 2; }

std::size_t distinct_x(LawVariable v, const std::vector<LawPoint>& p, std::size_t count)
{
  std::set<double> xs;
  for (std::size_t i = 0; i < count; ++i)
    xs.insert(x_of(v, p[i]));
  return xs.size();
}

Curve fit_on(const Candidate& c, const std::vector<LawPoint>& p, std::size_t count)
{
  if (c.scaled) {
    // least squares of y = a x^e: a = sum(y x^e) / sum(x^2e)
    double num = 0, den = 0;
    for (std::size_t i = 0; i < count; ++i) {
      double xe = std::pow(x_of(c.variable, p[i]), c.exponent);
      num += p[i].value * xe;
      den += xe * xe;
    }
    Curve curve;
    curve.form = CurveForm::Power;
    curve.a = den > 0 ? num / den : 0;
    curve.b = c.exponent;
    return curve;
  }
  std::vector<double> x, y;
  for (std::size_t i = 0; i < count; ++i) {
    x.push_back(x_of(c.variable, p[i]));
    y.push_back(p[i].value);
  }
  return fit_curve(c.form, x, y);
}

double relative_error(double predicted, double actual, double scale)
{
  double denom = std::max(std::fabs(actual), 1e-12 * scale);
  if (denom == 0)
    return predicted == 0 ? 0 : 1;
  return std::fabs(predicted - actual) / denom;
}

// positive data must stay positive where the law will be used: beyond the training counts
bool stays_positive_beyond(const Candidate& c, const Curve& curve, const std::vector<LawPoint>& p)
{
  if (c.variable == LawVariable::Procs) {
    double n = p.back().procs;
    for (int k = 1; k <= 20; ++k)
      if (!(curve(n * std::pow(2.0, k)) > 0))
        return false;
    return true;
  }
  double a = 1;
  for (const LawPoint& q : p)
    a = std::min(a, q.area);
  for (int k = 1; k <= 20; ++k)
    if (!(curve(a * std::pow(0.5, k)) > 0))
      return false;
  return true;
}

} // namespace

double Law::at(int procs, double area) const
{
  double x = variable == LawVariable::Procs ? procs : area;
  double v = curve(x);
  if (shared_from > 0 && variable == LawVariable::Procs && procs > shared_from)
    v = std::max(v, curve(shared_from) * shared_from / procs);
  if (!std::isfinite(v) || v < 0)
    v = 0;
  return integer ? std::round(v) : v;
}

bool Law::clamped(int procs, double area) const
{
  double v = curve(variable == LawVariable::Procs ? procs : area);
  return !std::isfinite(v) || v < 0;
}

std::string Law::describe() const
{
  std::string s = curve.describe();
  if (variable == LawVariable::Area && curve.form != CurveForm::Constant) {
    // Curve writes its variable as n
    std::string out;
    for (char ch : s)
      out += ch == 'n' ? 'A' : ch;
    s = out;
  }
  if (shared_from > 0)
    s += fmt::format(" (at least its value at {} times {}/n beyond)", shared_from, shared_from);
  if (body_share)
    s += validated && error > 0 ? fmt::format(" (a share of its body's sum, +-{:.1f}%)", 100 * error)
                                : std::string(" (a share of its body's sum)");
  else if (validated && error > 0)
    s += fmt::format(" (+-{:.1f}%)", 100 * error);
  else if (borrowed)
    s += points.size() == 1 ? " (one count; its siblings' form)" : " (one face size; its siblings' form)";
  else if (!validated && points.size() < 2)
    s += " (one count)";
  return s;
}

Law scaled_law(Law law, double factor)
{
  law.curve.a *= factor;
  if (law.curve.form != CurveForm::Power) // a n^b keeps its exponent; a + b f(n) scales both
    law.curve.b *= factor;
  return law;
}

Law constant_law(double value, bool integer)
{
  Law law;
  law.integer = integer;
  law.curve.a = integer ? std::round(value) : value;
  return law;
}

Law choose_law(std::vector<LawPoint> points, bool integer, bool with_area)
{
  std::sort(points.begin(), points.end(), [](const LawPoint& a, const LawPoint& b) { return a.procs < b.procs; });
  Law law;
  law.integer = integer;
  law.points = points;
  if (points.empty())
    return law;
  double scale = 0;
  bool positive = true, equal = true;
  for (const LawPoint& p : points) {
    scale = std::max(scale, std::fabs(p.value));
    positive = positive && p.value > 0;
    equal = equal && p.value == points.front().value;
  }
  if (equal) {
    law.curve.a = points.front().value;
    law.validated = points.size() >= 2;
    return law;
  }
  std::size_t K = points.size();
  bool found = false;
  double best_error = 0;
  Candidate best{LawVariable::Procs, CurveForm::Constant};
  for (const Candidate& c : candidates(with_area)) {
    if (c.form == CurveForm::Power && !c.scaled && !positive)
      continue;
    std::size_t k = static_cast<std::size_t>(coefficients(c));
    if (distinct_x(c.variable, points, K) < k)
      continue;
    double sum = 0;
    int forecasts = 0;
    for (std::size_t j = k; j < K; ++j) {
      if (distinct_x(c.variable, points, j) < k)
        continue;
      Curve f = fit_on(c, points, j);
      sum += relative_error(f(x_of(c.variable, points[j])), points[j].value, scale);
      ++forecasts;
    }
    if (forecasts == 0)
      continue;
    Curve all = fit_on(c, points, K);
    if (positive && !stays_positive_beyond(c, all, points))
      continue;
    double error = sum / forecasts;
    if (!found || error < best_error - 1e-9) {
      found = true;
      best_error = error;
      best = c;
    }
  }
  law.variable = best.variable;
  law.curve = fit_on(best, points, K);
  law.validated = found;
  law.error = found ? best_error : 0;
  return law;
}

void to_json(nlohmann::json& j, const Law& law)
{
  j = nlohmann::json{{"of", law.variable == LawVariable::Procs ? "n" : "A"},
                     {"form", curve_form_name(law.curve.form)},
                     {"a", law.curve.a},
                     {"b", law.curve.b},
                     {"integer", law.integer},
                     {"validated", law.validated},
                     {"error", law.error},
                     {"spread", law.spread},
                     {"borrowed", law.borrowed},
                     {"body_share", law.body_share},
                     {"shared_from", law.shared_from}};
  nlohmann::json pts = nlohmann::json::array();
  for (const LawPoint& p : law.points)
    pts.push_back({p.procs, p.area, p.value});
  j["points"] = pts;
}

Law law_from_json(const nlohmann::json& j, const std::string& where)
{
  if (!j.is_object())
    throw Error(fmt::format("{}: expected a law (an object with \"of\", \"form\", \"a\", \"b\")", where));
  Law law;
  try {
    std::string of = j.at("of").get<std::string>();
    if (of != "n" && of != "A")
      throw Error(fmt::format("{}: \"of\" is '{}' (expected \"n\" or \"A\")", where, of));
    law.variable = of == "n" ? LawVariable::Procs : LawVariable::Area;
    law.curve.form = curve_form_from_name(j.at("form").get<std::string>());
    law.curve.a = j.at("a").get<double>();
    law.curve.b = j.at("b").get<double>();
    law.integer = j.value("integer", false);
    law.validated = j.value("validated", false);
    law.error = j.value("error", 0.0);
    law.spread = j.value("spread", 0.0);
    law.borrowed = j.value("borrowed", false);
    law.body_share = j.value("body_share", false);
    law.shared_from = j.value("shared_from", 0);
    if (law.shared_from < 0)
      throw Error(fmt::format("{}: \"shared_from\" is {} (expected a process count, or 0)", where, law.shared_from));
    if (j.contains("points"))
      for (const auto& p : j.at("points")) {
        if (!p.is_array() || p.size() != 3)
          throw Error(fmt::format("{}: a point is [procs, area, value]", where));
        law.points.push_back({p[0].get<int>(), p[1].get<double>(), p[2].get<double>()});
      }
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
  if (!std::isfinite(law.curve.a) || !std::isfinite(law.curve.b))
    throw Error(fmt::format("{}: a law's coefficients must be finite numbers", where));
  return law;
}

} // namespace perfcast
