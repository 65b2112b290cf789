#include "probe/CurveFit.hpp"

#include <cmath>
#include <stdexcept>

namespace perfcast::probe {

double r_squared(const std::vector<double>& y, const std::vector<double>& predicted)
{
  double mean = 0;
  for (double v : y)
    mean += v / static_cast<double>(y.size());
  double residual = 0, total = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    residual += (y[i] - predicted[i]) * (y[i] - predicted[i]);
    total += (y[i] - mean) * (y[i] - mean);
  }
  if (total == 0)
    return residual == 0 ? 1.0 : 0.0;
  return 1 - residual / total;
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y)
{
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("fit_line: expected as many y as x, at least two");
  double n = static_cast<double>(x.size()), mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx == 0)
    throw std::invalid_argument("fit_line: all x are equal");
  LineFit f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  std::vector<double> predicted;
  for (double v : x)
    predicted.push_back(f.slope * v + f.intercept);
  f.r2 = r_squared(y, predicted);
  return f;
}

ExpFit fit_exponential(const std::vector<double>& x, const std::vector<double>& y)
{
  std::vector<double> logs;
  for (double v : y) {
    if (!(v > 0))
      throw std::invalid_argument("fit_exponential: every y must be positive");
    logs.push_back(std::log(v));
  }
  LineFit line = fit_line(x, logs);
  ExpFit f{std::exp(line.intercept), line.slope, 0};
  std::vector<double> predicted;
  for (double v : x)
    predicted.push_back(f.scale * std::exp(f.rate * v));
  f.r2 = r_squared(y, predicted);
  return f;
}

} // namespace perfcast::probe
