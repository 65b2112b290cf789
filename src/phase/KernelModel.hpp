#pragma once
// A reference kernel's run time against its size on one machine and process
// count: the model f(K) of Escobar and Boppana's equation 3
// (../shared/papers/phase-kernel-prediction-escobar.txt).
//
// Matching reads f both ways: sFactor needs K = f^-1(t), the kernel size at
// which the kernel takes as long as the phase, and the prediction needs
// f(S / avSF), usually beyond the largest size measured. So f must be
// monotone and extrapolate sanely. perfcast's f is a monotone piecewise cubic
// (Fritsch and Carlson, SIAM J. Numer. Anal. 17(2), 1980) through the measured
// points in log-log space, continued at both ends by the power law of the end
// segment. A cubic spline through noisy timings can wiggle, and then neither
// f^-1 nor the extrapolation is defined; a single fitted power law misses a
// kernel whose exponent changes as it leaves the cache.
#include <string>
#include <vector>

namespace perfcast::phase {

/// One measured point of a kernel: size and run time.
struct KernelPoint {
  double size = 0;
  double seconds = 0;
};

/// What a kernel's size counts: a size K stands for K^dim points, the
/// elements of the kernel's data (a matrix of order K has K^2 entries, a grid
/// of K points a side in 3-D K^3 points, a sparse matrix of K rows K rows).
/// Phase matching compares a phase's size with a kernel's in points when the
/// application's size is declared the same way (Matching's SizeDims).
struct KernelSizeUnit {
  std::string counts; ///< in words, e.g. "matrix order"
  int dim = 1;        ///< the dimensions the size spans, 1 to 3
};

/// A monotone run-time model of one kernel, invertible over all sizes > 0.
class KernelModel {
public:
  /// Builds the model from at least two points with distinct positive sizes
  /// and positive times; times that fall as the size grows (timing noise) are
  /// pooled with their neighbours first, so the model never decreases.
  /// `name` is used in error messages.
  KernelModel(std::string name, std::vector<KernelPoint> points);

  /// Run time at size `size` (> 0).
  double seconds_at(double size) const;
  /// Size at which the kernel runs `seconds` (> 0): the inverse of seconds_at.
  double size_for(double seconds) const;

  const std::string& name() const { return name_; }
  /// The points after pooling, sorted by size.
  const std::vector<KernelPoint>& points() const { return points_; }
  double min_size() const { return points_.front().size; }
  double max_size() const { return points_.back().size; }
  /// The largest size the model answers for from measurements: the largest
  /// measured size carried one end segment further (times the ratio of the
  /// last two measured sizes, the ladder's own spacing). Beyond it the model
  /// is nothing but the end segment's power law.
  double supported_max_size() const { return max_size() * max_size() / points_[points_.size() - 2].size; }

private:
  double log_time_at(double log_size) const;
  std::string name_;
  std::vector<KernelPoint> points_;
  std::vector<double> x_, y_, slope_; ///< log sizes, log times, derivatives at the knots
};

} // namespace perfcast::phase
