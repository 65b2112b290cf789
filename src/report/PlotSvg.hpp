#pragma once
// A line chart as SVG: run time against process count, one line per model,
// measured runs as dots.
#include <string>
#include <vector>

namespace perfcast {

struct PlotSeries {
  std::string name;
  std::string colour;
  std::vector<std::pair<double, double>> points; ///< (x, y)
  bool dots_only = false;
};

std::string line_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<PlotSeries>& series);

} // namespace perfcast
