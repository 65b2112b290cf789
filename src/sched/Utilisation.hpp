#pragma once
// Utilisation over time of a simulation's cores: busy core-seconds summed into
// a fixed number of equal time bins whose width doubles (adjacent bins merge)
// whenever the simulation outgrows them, so memory stays constant however long
// the run and every bin holds the exact time-weighted mean.
#include <string>
#include <vector>

namespace perfcast::sched {

/// Busy core-seconds of one group of cores, in equal bins from time 0.
class BusyArea {
public:
  /// `bins` must be even; the first width is `first_width_s`.
  explicit BusyArea(int bins = 256, double first_width_s = 1e-6);
  /// Adds `busy` cores held from t0 to t1 (t0 <= t1).
  void add(double t0, double t1, double busy);
  /// Width of a bin now, in seconds.
  double width_s() const { return width_; }
  /// Busy core-seconds per bin.
  const std::vector<double>& areas() const { return area_; }

private:
  std::vector<double> area_;
  double width_;
};

/// Records busy cores per computer (when few) and of the whole platform.
class UtilisationRecorder {
public:
  /// Cores of each computer; per-computer series are kept for up to `max_series` computers.
  explicit UtilisationRecorder(std::vector<int> cores, std::size_t max_series = 8);
  /// A computer's busy cores changed at time t (times never decrease).
  void change(double t, int computer, int busy);
  /// Closes every series at time t (the end of the simulation).
  void finish(double t);
  /// The utilisation plot as SVG: the platform's, and each computer's when few.
  std::string svg(const std::string& title, const std::vector<std::string>& names) const;

private:
  std::vector<int> cores_, busy_;
  std::vector<double> since_;
  std::vector<BusyArea> per_computer_;
  BusyArea total_;
  int total_cores_ = 0, total_busy_ = 0;
  double total_since_ = 0, end_ = 0;
};

} // namespace perfcast::sched
