#pragma once
// A line chart as SVG: run time against process count, one line per model,
// measured runs as dots. The process axis can be log2 with ticks at the swept
// counts; the value axis starts at 0 and ends on a round tick.
#include <array>
#include <string>
#include <vector>

namespace perfcast {

/// The shape a series' points are drawn with, in the plot and its legend.
enum class Marker { circle, square, diamond, cross };

struct PlotSeries {
  std::string name;
  std::string colour;
  std::vector<std::pair<double, double>> points; ///< (x, y)
  bool dots_only = false;
  /// a band around the line: (x, low, high), drawn shaded in the series' colour behind it; may be empty
  std::vector<std::array<double, 3>> band;
  Marker marker = Marker::circle; ///< the points' shape (dots_only series)
  bool dashed = false;            ///< a line drawn dashed (a prediction, not a measurement)
  bool end_marker = false;        ///< a line whose last point is also drawn with `marker`
};

/// Titles and axis choices of a line chart.
struct LineChart {
  std::string title;
  std::string subtitle; ///< second title line, e.g. the model and platform files; may be empty
  std::string x_label;
  std::string y_label;
  bool log2_x = false;          ///< x on a log2 scale (all x must be positive)
  std::vector<double> x_ticks;  ///< log2 axis: tick values; empty for every distinct x of the series
  std::vector<std::string> notes; ///< lines printed under the legend (warnings); the chart grows to hold them
};

/// One axis tick: its value, its pixel position and its printed label ("" when skipped for room).
struct ChartTick {
  double value;
  double px;
  std::string label;
};

/// Where a chart puts its plot area and ticks.
struct ChartLayout {
  double left, right, top, bottom; ///< plot area in pixels (y grows downwards)
  double x_lo, x_hi, y_hi;         ///< axis ranges (x_lo, x_hi in log2 units on a log2 axis)
  std::vector<ChartTick> x_ticks, y_ticks;
};

/// The layout line_chart_svg draws `series` with.
ChartLayout line_chart_layout(const LineChart& chart, const std::vector<PlotSeries>& series);

/// The chart as an SVG document.
std::string line_chart_svg(const LineChart& chart, const std::vector<PlotSeries>& series);

/// A chart with a linear x axis and one title line.
std::string line_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<PlotSeries>& series);

} // namespace perfcast
