#include "fit/LeastSquares.hpp"

#include <Eigen/Dense>
#include <cmath>

namespace perfcast {

namespace {

double sum_squares(const std::vector<double>& r)
{
  double s = 0;
  for (double v : r)
    s += v * v;
  return std::isfinite(s) ? s : std::numeric_limits<double>::infinity();
}

Eigen::MatrixXd forward_jacobian(const std::function<std::vector<double>(const Eigen::VectorXd&)>& residuals_at,
                                 const Eigen::VectorXd& u, const std::vector<double>& r)
{
  const Eigen::Index m = static_cast<Eigen::Index>(r.size()), n = u.size();
  Eigen::MatrixXd J(m, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    Eigen::VectorXd v = u;
    double h = 1e-6 * std::max(1.0, std::fabs(u[j]));
    v[j] += h;
    std::vector<double> rj = residuals_at(v);
    for (Eigen::Index i = 0; i < m; ++i)
      J(i, j) = (rj[static_cast<std::size_t>(i)] - r[static_cast<std::size_t>(i)]) / h;
  }
  return J;
}

/// Conditioning and standard errors from the Jacobian at the solution:
/// covariance = s^2 (J^T J)^-1 with s^2 = cost / (m - n), through the SVD.
void describe_uncertainty(const Eigen::MatrixXd& J, double cost, FitResult& result)
{
  const Eigen::Index m = J.rows(), n = J.cols();
  result.degrees_of_freedom = static_cast<int>(m - n);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeThinV);
  const Eigen::VectorXd& sv = svd.singularValues();
  double largest = sv.size() > 0 ? sv[0] : 0.0;
  double smallest = sv.size() == n ? sv[n - 1] : 0.0;
  result.jacobian_conditioning = largest > 0 && std::isfinite(largest) ? smallest / largest : 0.0;
  if (result.degrees_of_freedom <= 0 || !result.identifiable())
    return;
  double s2 = cost / static_cast<double>(result.degrees_of_freedom);
  Eigen::MatrixXd V = svd.matrixV();
  for (Eigen::Index j = 0; j < n; ++j) {
    double var = 0;
    for (Eigen::Index k = 0; k < n; ++k)
      var += V(j, k) * V(j, k) / (sv[k] * sv[k]);
    result.standard_errors.push_back(std::sqrt(s2 * var));
  }
}

} // namespace

FitResult levenberg_marquardt(const std::function<std::vector<double>(const std::vector<double>&)>& residuals,
                              std::vector<double> p0, const FitOptions& options)
{
  // optimise u = log p when parameters must stay positive
  auto to_params = [&](const Eigen::VectorXd& u) {
    std::vector<double> p(static_cast<std::size_t>(u.size()));
    for (Eigen::Index i = 0; i < u.size(); ++i)
      p[static_cast<std::size_t>(i)] = options.positive ? std::exp(u[i]) : u[i];
    return p;
  };
  Eigen::VectorXd u(static_cast<Eigen::Index>(p0.size()));
  for (std::size_t i = 0; i < p0.size(); ++i)
    u[static_cast<Eigen::Index>(i)] = options.positive ? std::log(std::max(p0[i], 1e-300)) : p0[i];

  FitResult result;
  std::vector<double> r = residuals(to_params(u));
  double cost = sum_squares(r);
  if (!std::isfinite(cost)) {
    result.parameters = to_params(u);
    result.residuals = r;
    result.cost = cost;
    result.message = "the model gives no finite prediction at the initial guess";
    return result;
  }
  const Eigen::Index m = static_cast<Eigen::Index>(r.size());
  auto residuals_at = [&](const Eigen::VectorXd& v) { return residuals(to_params(v)); };
  double lambda = 1e-3;
  for (int it = 0; it < options.max_iterations; ++it) {
    result.iterations = it + 1;
    Eigen::MatrixXd J = forward_jacobian(residuals_at, u, r);
    Eigen::VectorXd rv = Eigen::Map<const Eigen::VectorXd>(r.data(), m);
    Eigen::MatrixXd JtJ = J.transpose() * J;
    Eigen::VectorXd g = J.transpose() * rv;
    bool improved = false;
    for (int tries = 0; tries < 30 && !improved; ++tries) {
      Eigen::MatrixXd A = JtJ;
      A.diagonal() += lambda * (JtJ.diagonal().array() + 1e-12).matrix();
      Eigen::VectorXd step = A.ldlt().solve(-g);
      if (!step.allFinite()) {
        lambda *= 10;
        continue;
      }
      Eigen::VectorXd trial = u + step;
      std::vector<double> rt = residuals(to_params(trial));
      double ct = sum_squares(rt);
      if (ct < cost) {
        double drop = (cost - ct) / std::max(cost, 1e-300);
        double move = step.norm() / std::max(u.norm(), 1e-12);
        u = trial;
        r = rt;
        cost = ct;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (drop < options.tolerance || move < options.tolerance) {
          result.converged = true;
          result.message = "converged";
        }
      } else {
        lambda *= 10;
      }
    }
    if (!improved) {
      // no descent step left: at a (local) minimum to working precision
      result.converged = g.norm() < 1e-6 * std::max(1.0, std::sqrt(cost)) || cost < 1e-20;
      result.message = result.converged ? "converged" : "no step reduces the error further";
      break;
    }
    if (result.converged)
      break;
  }
  if (result.message.empty())
    result.message = "iteration limit reached";
  result.parameters = to_params(u);
  result.residuals = r;
  result.cost = cost;
  describe_uncertainty(forward_jacobian(residuals_at, u, r), cost, result);
  return result;
}

} // namespace perfcast
