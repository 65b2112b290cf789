#pragma once
// Axis ticks for charts: round 1-2-5 steps on linear axes, chosen counts on
// log2 axes, and labels printed with just the digits the step needs.
#include <string>
#include <vector>

namespace perfcast {

/// A step of 1, 2 or 5 times a power of ten that cuts `span` into about `target_count` parts.
double nice_step(double span, int target_count);

/// Multiples of nice_step(hi - lo, target_count) that lie in [lo, hi]; empty when hi <= lo.
std::vector<double> nice_ticks(double lo, double hi, int target_count);

/// Multiples of nice_step(value, target_count) from 0 up to the first one at or above `value` (> 0).
std::vector<double> covering_ticks(double value, int target_count);

/// `value` printed with as many decimals as `step` needs ("0.05", "250", "1.5").
std::string format_tick(double value, double step);

/// A unit to print a duration in: seconds times `per_second` gives the value in `name`.
struct TimeUnit {
  double per_second;
  const char* name;
};

/// The unit (s, ms or us) in which `seconds` reads as a number from 1 to 1000 when possible.
TimeUnit time_unit_for(double seconds);

} // namespace perfcast
