#include "sched/Utilisation.hpp"

#include "report/PlotSvg.hpp"

#include <algorithm>
#include <cmath>

namespace perfcast::sched {

BusyArea::BusyArea(int bins, double first_width_s) : area_(static_cast<std::size_t>(bins), 0.0), width_(first_width_s) {}

void BusyArea::add(double t0, double t1, double busy)
{
  if (!(t1 > t0) || busy == 0)
    return;
  const std::size_t n = area_.size();
  while (t1 > width_ * static_cast<double>(n)) { // outgrown: merge pairs, double the width
    for (std::size_t i = 0; i < n / 2; ++i)
      area_[i] = area_[2 * i] + area_[2 * i + 1];
    std::fill(area_.begin() + static_cast<std::ptrdiff_t>(n / 2), area_.end(), 0.0);
    width_ *= 2;
  }
  auto bin = static_cast<std::size_t>(std::floor(t0 / width_));
  double t = t0;
  while (t < t1 && bin < n) {
    double edge = std::min(t1, width_ * static_cast<double>(bin + 1));
    area_[bin] += busy * (edge - t);
    t = edge;
    ++bin;
  }
}

UtilisationRecorder::UtilisationRecorder(std::vector<int> cores, std::size_t max_series)
    : cores_(std::move(cores)), busy_(cores_.size(), 0), since_(cores_.size(), 0.0)
{
  for (int c : cores_)
    total_cores_ += c;
  if (cores_.size() <= max_series)
    per_computer_.resize(cores_.size());
}

void UtilisationRecorder::change(double t, int computer, int busy)
{
  auto c = static_cast<std::size_t>(computer);
  total_.add(total_since_, t, total_busy_);
  total_since_ = t;
  total_busy_ += busy - busy_[c];
  if (!per_computer_.empty()) {
    per_computer_[c].add(since_[c], t, busy_[c]);
    since_[c] = t;
  }
  busy_[c] = busy;
  end_ = std::max(end_, t);
}

void UtilisationRecorder::finish(double t)
{
  total_.add(total_since_, t, total_busy_);
  total_since_ = t;
  for (std::size_t c = 0; c < per_computer_.size(); ++c) {
    per_computer_[c].add(since_[c], t, busy_[c]);
    since_[c] = t;
  }
  end_ = std::max(end_, t);
}

std::string UtilisationRecorder::svg(const std::string& title, const std::vector<std::string>& names) const
{
  static const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                                  "#7f7f7f", "#bcbd22"};
  auto series = [&](const BusyArea& a, int cores, const std::string& name, const char* colour) {
    PlotSeries s{name, colour, {}, false};
    double w = a.width_s();
    auto used = static_cast<std::size_t>(std::ceil(end_ / w));
    for (std::size_t i = 0; i < std::min(used, a.areas().size()); ++i) {
      double span = std::min(w, end_ - w * static_cast<double>(i)); // the last bin may be cut by the end
      if (span > 0)
        s.points.emplace_back(w * (static_cast<double>(i) + 0.5), 100 * a.areas()[i] / (cores * span));
    }
    return s;
  };
  std::vector<PlotSeries> out;
  for (std::size_t c = 0; c < per_computer_.size(); ++c)
    out.push_back(series(per_computer_[c], cores_[c], c < names.size() ? names[c] : "computer",
                         colours[1 + c % 8]));
  out.push_back(series(total_, total_cores_, "all cores", colours[0])); // drawn last, on top
  return line_chart_svg(title, "time (s)", "busy cores (%)", out);
}

} // namespace perfcast::sched
