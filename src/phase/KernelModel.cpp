#include "phase/KernelModel.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast::phase {
namespace {

/// Medians of repeated sizes (the mean of the middle two for an even
/// count), sorted by size: the machine's speed drifts between runs, and the
/// small runs of a phase stand by their median as well (PhaseRunner).
std::vector<KernelPoint> merge_repeats(std::vector<KernelPoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const KernelPoint& a, const KernelPoint& b) {
    return a.size != b.size ? a.size < b.size : a.seconds < b.seconds;
  });
  std::vector<KernelPoint> merged;
  std::size_t i = 0;
  while (i < points.size()) {
    std::size_t j = i;
    while (j < points.size() && points[j].size == points[i].size) ++j;
    const std::size_t n = j - i, mid = i + n / 2;
    merged.push_back({points[i].size, n % 2 == 1 ? points[mid].seconds : (points[mid - 1].seconds + points[mid].seconds) / 2});
    i = j;
  }
  return merged;
}

/// Pool-adjacent-violators on log times: the closest non-decreasing sequence
/// in least squares, so a timing that dips below its smaller neighbour is
/// averaged with it instead of making the model fall.
std::vector<double> non_decreasing(const std::vector<double>& y) {
  struct Block {
    double sum;
    int count;
  };
  std::vector<Block> blocks;
  for (double v : y) {
    blocks.push_back({v, 1});
    while (blocks.size() > 1) {
      Block& last = blocks[blocks.size() - 1];
      Block& prev = blocks[blocks.size() - 2];
      if (prev.sum / prev.count <= last.sum / last.count) break;
      prev.sum += last.sum;
      prev.count += last.count;
      blocks.pop_back();
    }
  }
  std::vector<double> out;
  for (const Block& b : blocks) out.insert(out.end(), static_cast<std::size_t>(b.count), b.sum / b.count);
  return out;
}

} // namespace

KernelModel::KernelModel(std::string name, std::vector<KernelPoint> points) : name_(std::move(name)) {
  for (const KernelPoint& p : points)
    if (!(std::isfinite(p.size) && p.size > 0 && std::isfinite(p.seconds) && p.seconds > 0))
      throw Error(fmt::format("kernel {}: size {} and time {} s (expected a positive size and a positive time)",
                              name_, p.size, p.seconds));
  points_ = merge_repeats(std::move(points));
  if (points_.size() < 2)
    throw Error(fmt::format("kernel {}: {} distinct size(s) (expected at least 2 to build a run-time model)", name_,
                            points_.size()));
  for (const KernelPoint& p : points_) {
    x_.push_back(std::log(p.size));
    y_.push_back(std::log(p.seconds));
  }
  y_ = non_decreasing(y_);
  for (std::size_t k = 0; k < points_.size(); ++k) points_[k].seconds = std::exp(y_[k]);
  if (!(y_.back() > y_.front()))
    throw Error(fmt::format("kernel {}: the run time does not grow with the size between {} and {} "
                            "(expected a kernel whose time increases, so that it can be matched)",
                            name_, points_.front().size, points_.back().size));

  // Fritsch-Carlson derivatives at the knots.
  const std::size_t n = x_.size();
  std::vector<double> secant(n - 1);
  for (std::size_t k = 0; k + 1 < n; ++k) secant[k] = (y_[k + 1] - y_[k]) / (x_[k + 1] - x_[k]);
  slope_.assign(n, 0);
  slope_[0] = secant[0];
  slope_[n - 1] = secant[n - 2];
  for (std::size_t k = 1; k + 1 < n; ++k)
    slope_[k] = (secant[k - 1] > 0 && secant[k] > 0) ? (secant[k - 1] + secant[k]) / 2 : 0;
  for (std::size_t k = 0; k + 1 < n; ++k) {
    if (secant[k] == 0) {
      slope_[k] = slope_[k + 1] = 0;
      continue;
    }
    const double a = slope_[k] / secant[k], b = slope_[k + 1] / secant[k];
    const double r = a * a + b * b;
    if (r > 9) {
      const double tau = 3 / std::sqrt(r);
      slope_[k] = tau * a * secant[k];
      slope_[k + 1] = tau * b * secant[k];
    }
  }
}

namespace {
/// Slope of the power law that continues the model beyond its first (`last`
/// false) or last knot: that of the nearest segment along which time grows.
double end_slope(const std::vector<double>& x, const std::vector<double>& y, bool last) {
  const std::size_t n = x.size();
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::size_t k = last ? n - 2 - i : i;
    const double s = (y[k + 1] - y[k]) / (x[k + 1] - x[k]);
    if (s > 0) return s;
  }
  return 0; // unreachable: the constructor checked that time grows
}
} // namespace

double KernelModel::log_time_at(double u) const {
  if (u <= x_.front()) return y_.front() + end_slope(x_, y_, false) * (u - x_.front());
  if (u >= x_.back()) return y_.back() + end_slope(x_, y_, true) * (u - x_.back());
  const std::size_t k =
      static_cast<std::size_t>(std::upper_bound(x_.begin(), x_.end(), u) - x_.begin()) - 1;
  const double h = x_[k + 1] - x_[k], t = (u - x_[k]) / h;
  const double t2 = t * t, t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * y_[k] + (t3 - 2 * t2 + t) * h * slope_[k] + (-2 * t3 + 3 * t2) * y_[k + 1] +
         (t3 - t2) * h * slope_[k + 1];
}

double KernelModel::seconds_at(double size) const {
  if (!(std::isfinite(size) && size > 0))
    throw Error(fmt::format("kernel {}: size {} (expected a positive size)", name_, size));
  return std::exp(log_time_at(std::log(size)));
}

double KernelModel::size_for(double seconds) const {
  if (!(std::isfinite(seconds) && seconds > 0))
    throw Error(fmt::format("kernel {}: time {} s (expected a positive time)", name_, seconds));
  const double v = std::log(seconds);
  if (v <= y_.front()) return std::exp(x_.front() + (v - y_.front()) / end_slope(x_, y_, false));
  if (v > y_.back()) return std::exp(x_.back() + (v - y_.back()) / end_slope(x_, y_, true));
  // The first segment that reaches v; the Hermite piece is monotone on it
  // (Fritsch-Carlson), so bisection finds the size, the smallest on a plateau.
  std::size_t k = 0;
  while (y_[k + 1] < v) ++k;
  double lo = x_[k], hi = x_[k + 1];
  for (int i = 0; i < 100 && hi - lo > 1e-15 * std::max(1.0, std::abs(hi)); ++i) {
    const double mid = (lo + hi) / 2;
    (log_time_at(mid) < v ? lo : hi) = mid;
  }
  return std::exp((lo + hi) / 2);
}

} // namespace perfcast::phase
