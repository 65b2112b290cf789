#pragma once
// Least-squares curves of the memory probe (the paper's Table 2): a straight
// line while memory in use fits in main memory, an exponential once swapping.
#include <vector>

namespace perfcast::probe {

/// y = slope x + intercept, with its coefficient of determination.
struct LineFit {
  double slope = 0;
  double intercept = 0;
  double r2 = 0; ///< 1 - residual / total sum of squares (1 when y is exactly constant and fitted)
};

/// y = scale exp(rate x), with R^2 computed on y itself.
struct ExpFit {
  double scale = 0;
  double rate = 0;
  double r2 = 0;
};

/// Ordinary least squares; needs two distinct x values (throws std::invalid_argument otherwise).
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

/// Least squares of log y on x (every y must be positive; throws std::invalid_argument otherwise).
ExpFit fit_exponential(const std::vector<double>& x, const std::vector<double>& y);

/// R^2 of predictions against observations.
double r_squared(const std::vector<double>& y, const std::vector<double>& predicted);

} // namespace perfcast::probe
