#pragma once
// Nonlinear least squares by Levenberg-Marquardt (Gauss-Newton with a
// damping term that falls back towards gradient descent when a step fails),
// with a forward-difference Jacobian. Residuals are whatever the caller
// returns, e.g. relative errors of predicted run times.
#include <functional>
#include <string>
#include <vector>

namespace perfcast {

struct FitResult {
  std::vector<double> parameters;
  std::vector<double> residuals;
  double cost = 0; ///< sum of squared residuals
  int iterations = 0;
  bool converged = false;
  std::string message; ///< why it stopped
  /// What the data say about the parameters, from the Jacobian at the solution.
  int degrees_of_freedom = 0; ///< residuals minus parameters
  /// Smallest over largest singular value of the Jacobian; near 0 when some
  /// combination of parameters leaves every residual unchanged.
  double jacobian_conditioning = 0;
  /// One standard error per parameter, relative to the parameter when the
  /// search is on log scale (FitOptions::positive), absolute otherwise; empty
  /// when there are no degrees of freedom or the parameters are not identifiable.
  std::vector<double> standard_errors;
  bool identifiable() const { return jacobian_conditioning > 1e-7; }
};

struct FitOptions {
  int max_iterations = 200;
  double tolerance = 1e-10; ///< relative change of the cost and of the parameters
  /// keep parameters positive (search on log scale); the paper's constants are
  bool positive = true;
};

/// Minimises sum r_i(p)^2 from p0. `residuals` must return the same number of
/// residuals on every call; non-finite residuals make a step fail.
FitResult levenberg_marquardt(const std::function<std::vector<double>(const std::vector<double>&)>& residuals,
                              std::vector<double> p0, const FitOptions& options = FitOptions{});

} // namespace perfcast
