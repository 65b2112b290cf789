#pragma once
// A parameter of the application model (a message's bytes, a computation's
// flops, a loop's iterations) as a law of the process count n: one of the
// two-coefficient forms of fit/Curve, of n itself or, for traffic to a grid
// neighbour, of the crossed face's share of the domain's cross-section A (the
// product of 1/p_j over the axes the offset does not cross; a fixed domain cut
// finer gives bytes c A). The form is chosen by forward validation: each form
// is fitted on the smaller training counts and scored on the next larger one,
// as an extrapolation will use it; the mean relative error of those forecasts
// is kept as the law's uncertainty.
#include "fit/Curve.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast {

enum class LawVariable : std::uint8_t {
  Procs, ///< n
  Area,  ///< A, the share of the cross-section a grid offset crosses (1 on a 1-D grid)
};

/// One training count's value: the mean over the ranks that have the parameter.
struct LawPoint {
  int procs = 0;
  double area = 1;
  double value = 0;
};

struct Law {
  LawVariable variable = LawVariable::Procs;
  Curve curve;
  bool integer = false;   ///< evaluations are rounded to whole numbers
  bool validated = false; ///< error comes from forward validation (enough counts for the form)
  double error = 0;       ///< mean relative error of the forward forecasts; 0 when every count agreed
  double spread = 0;      ///< largest (max - min) / mean across the ranks at one training count
  bool borrowed = false;  ///< seen at one count only: the form of its sibling actions, its coefficient from that count
  /// a computation slot's share (at the largest training count) of its loop body's summed computation, whose law
  /// this one is scaled from: the body's sum forecast the training counts better than its slots' own laws
  bool body_share = false;
  /// beyond this count (0: nowhere) the value falls no faster than 1/n: it is a share of work that adding ranks
  /// does not shrink (a law of n only)
  int shared_from = 0;
  std::vector<LawPoint> points;
  /// The value at n processes (area: A there), never negative, rounded when integer.
  double at(int procs, double area) const;
  /// Whether the law's curve went below zero at (procs, area) and was clamped.
  bool clamped(int procs, double area) const;
  /// "512", "3.2e+06 n^-1 (+-2.1%)", "8192 A^1".
  std::string describe() const;
};

/// The law's curve times `factor` (its points unchanged).
Law scaled_law(Law law, double factor);

/// A constant law (exact).
Law constant_law(double value, bool integer);

/// Fits the candidate forms to the points and keeps the one whose forward
/// forecasts erred least (ties: the simpler form); forms of A compete only when
/// `with_area`. Forms that would turn negative beyond the training counts are
/// not kept for positive data. One point, or points too few to validate any
/// two-coefficient form, give the constant at their mean (validated when two
/// or more points agree or disagree, by the same rule).
Law choose_law(std::vector<LawPoint> points, bool integer, bool with_area);

void to_json(nlohmann::json& j, const Law& law);
/// Reads a law; throws Error naming `where` and what was expected.
Law law_from_json(const nlohmann::json& j, const std::string& where);

} // namespace perfcast
