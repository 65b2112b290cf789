#include "report/PlotSvg.hpp"

#include "report/Axis.hpp"
#include "report/SvgText.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

namespace perfcast {
namespace {

constexpr double kWidth = 760, kHeight = 470, kTop = 58, kRight = 28, kBottom = 110;
constexpr double kCharWidth = 7.0;    // of a 12-pixel sans-serif character, generously
constexpr double kMinLabelGap = 30;   // pixels between the centres of two x labels

/// One point's mark, centred on (x, y) in pixels.
std::string marker_svg(Marker m, double x, double y, const std::string& colour)
{
  switch (m) {
  case Marker::square:
    return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"8\" height=\"8\" fill=\"{}\"/>", x - 4, y - 4,
                       colour);
  case Marker::diamond:
    return fmt::format("<path d=\"M{0:.1f},{1:.1f} L{2:.1f},{3:.1f} L{0:.1f},{4:.1f} L{5:.1f},{3:.1f} Z\" fill=\"white\" "
                       "stroke=\"{6}\" stroke-width=\"2\"/>",
                       x, y - 6, x + 6, y, y + 6, x - 6, colour);
  case Marker::cross:
    return fmt::format("<path d=\"M{0:.1f},{1:.1f} L{2:.1f},{3:.1f} M{0:.1f},{3:.1f} L{2:.1f},{1:.1f}\" stroke=\"{4}\" "
                       "stroke-width=\"2.5\"/>",
                       x - 5, y - 5, x + 5, y + 5, colour);
  case Marker::circle:
    break;
  }
  return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>", x, y, colour);
}

double x_value(const LineChart& chart, double x) { return chart.log2_x ? std::log2(x) : x; }

bool drawable(const LineChart& chart, double x, double y)
{
  return std::isfinite(x) && std::isfinite(y) && (!chart.log2_x || x > 0);
}

} // namespace

ChartLayout line_chart_layout(const LineChart& chart, const std::vector<PlotSeries>& series)
{
  double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
  std::vector<double> xs;
  for (const auto& s : series)
    for (auto [x, y] : s.points)
      if (drawable(chart, x, y)) {
        xmin = std::min(xmin, x_value(chart, x));
        xmax = std::max(xmax, x_value(chart, x));
        ymax = std::max(ymax, y);
        xs.push_back(x);
      }
  for (const auto& s : series)
    for (const auto& [x, lo, hi] : s.band)
      if (drawable(chart, x, hi) && std::isfinite(lo))
        ymax = std::max(ymax, hi);
  std::vector<double> tick_values = chart.x_ticks.empty() ? xs : chart.x_ticks;
  if (chart.log2_x)
    std::erase_if(tick_values, [](double x) { return !(x > 0) || !std::isfinite(x); });
  std::sort(tick_values.begin(), tick_values.end());
  tick_values.erase(std::unique(tick_values.begin(), tick_values.end()), tick_values.end());
  if (chart.log2_x)
    for (double t : tick_values) {
      xmin = std::min(xmin, std::log2(t));
      xmax = std::max(xmax, std::log2(t));
    }
  if (!(xmin <= xmax)) {
    xmin = 0;
    xmax = 1;
  }
  if (xmax == xmin) {
    xmin -= 0.5;
    xmax += 0.5;
  }
  ChartLayout layout;
  // a log2 axis reaches a fifth of a doubling past the outer counts, so end dots are not cut
  double pad = chart.log2_x ? 0.2 : 0.0;
  layout.x_lo = xmin - pad;
  layout.x_hi = xmax + pad;
  std::vector<double> y_values = covering_ticks(ymax, 5);
  layout.y_hi = y_values.back();
  double y_step = y_values[1] - y_values[0];
  std::size_t widest = 1;
  for (double v : y_values)
    widest = std::max(widest, format_tick(v, y_step).size());
  layout.left = std::ceil(34 + static_cast<double>(widest) * kCharWidth);
  layout.right = kWidth - kRight;
  layout.top = kTop;
  layout.bottom = kHeight - kBottom;
  auto px = [&](double v) { return layout.left + (v - layout.x_lo) / (layout.x_hi - layout.x_lo) * (layout.right - layout.left); };
  for (double v : y_values)
    layout.y_ticks.push_back(
        {v, layout.bottom - v / layout.y_hi * (layout.bottom - layout.top), format_tick(v, y_step)});
  if (chart.log2_x) {
    double last_labelled = -INFINITY;
    for (double t : tick_values) {
      double p = px(std::log2(t));
      bool room = p - last_labelled >= kMinLabelGap;
      if (room)
        last_labelled = p;
      layout.x_ticks.push_back({t, p, room ? fmt::format("{:g}", t) : ""});
    }
  } else {
    double step = nice_step(layout.x_hi - layout.x_lo, 6);
    for (double v : nice_ticks(layout.x_lo, layout.x_hi, 6))
      layout.x_ticks.push_back({v, px(v), format_tick(v, step)});
  }
  return layout;
}

std::string line_chart_svg(const LineChart& chart, const std::vector<PlotSeries>& series)
{
  ChartLayout l = line_chart_layout(chart, series);
  auto px = [&](double x) { return l.left + (x_value(chart, x) - l.x_lo) / (l.x_hi - l.x_lo) * (l.right - l.left); };
  auto py = [&](double y) { return l.bottom - y / l.y_hi * (l.bottom - l.top); };
  // the legend's entries, left to right, wrapped onto further rows of 20
  // pixels where a row would pass the plot's right edge
  constexpr double kLegendRow = 20;
  std::vector<std::pair<double, double>> legend_at;
  {
    double x = l.left, y = l.bottom + 62;
    for (const auto& s : series) {
      const double width = 50 + static_cast<double>(s.name.size()) * kCharWidth;
      if (x > l.left && x + width - 28 > l.right) {
        x = l.left;
        y += kLegendRow;
      }
      legend_at.emplace_back(x, y);
      x += width;
    }
  }
  const double extra_rows = legend_at.empty() ? 0 : (legend_at.back().second - (l.bottom + 62)) / kLegendRow;
  double height = kHeight + kLegendRow * extra_rows + 18 * static_cast<double>(chart.notes.size());
  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                                "font-family=\"sans-serif\" font-size=\"12\">\n",
                                kWidth, height);
  svg += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kWidth, height);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"24\" font-size=\"15\">{}</text>\n", l.left, xml_escape(chart.title));
  if (!chart.subtitle.empty())
    svg += fmt::format("<text x=\"{:.0f}\" y=\"42\" fill=\"#555\">{}</text>\n", l.left, xml_escape(chart.subtitle));
  for (const ChartTick& t : l.y_ticks)
    svg += fmt::format("<line x1=\"{0:.0f}\" y1=\"{1:.2f}\" x2=\"{2:.0f}\" y2=\"{1:.2f}\" stroke=\"#e0e0e0\"/>"
                       "<text x=\"{3:.0f}\" y=\"{4:.2f}\" text-anchor=\"end\">{5}</text>\n",
                       l.left, t.px, l.right, l.left - 6, t.px + 4, t.label);
  for (const ChartTick& t : l.x_ticks) {
    svg += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.0f}\" x2=\"{0:.2f}\" y2=\"{2:.0f}\" stroke=\"{3}\"/>\n", t.px,
                       l.top, l.bottom + (t.label.empty() ? 0 : 5), t.label.empty() ? "#f0f0f0" : "#e0e0e0");
    if (!t.label.empty())
      svg += fmt::format("<text x=\"{:.2f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n", t.px, l.bottom + 19,
                         t.label);
  }
  svg += fmt::format("<path d=\"M{0:.0f},{1:.0f}V{2:.0f}H{3:.0f}\" fill=\"none\" stroke=\"black\"/>\n", l.left, l.top,
                     l.bottom, l.right);
  std::string x_label = chart.x_label + (chart.log2_x ? " (log2 scale)" : "");
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n", (l.left + l.right) / 2,
                     l.bottom + 40, xml_escape(x_label));
  double mid = (l.top + l.bottom) / 2;
  svg += fmt::format("<text x=\"16\" y=\"{0:.0f}\" transform=\"rotate(-90 16 {0:.0f})\" text-anchor=\"middle\">{1}</text>\n",
                     mid, xml_escape(chart.y_label));
  for (const auto& s : series) {
    // the band's polygon: along the high ends, back along the low ends
    std::string d;
    std::vector<std::array<double, 3>> band;
    for (const auto& b : s.band)
      if (drawable(chart, b[0], b[1]) && std::isfinite(b[2]))
        band.push_back(b);
    for (const auto& b : band)
      d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "M" : " L", px(b[0]), py(b[2]));
    for (auto it = band.rbegin(); it != band.rend(); ++it)
      d += fmt::format(" L{:.1f},{:.1f}", px((*it)[0]), py(std::max(0.0, (*it)[1])));
    if (!d.empty())
      svg += fmt::format("<path d=\"{} Z\" fill=\"{}\" fill-opacity=\"0.18\" stroke=\"none\"/>\n", d, s.colour);
  }
  for (std::size_t k = 0; k < series.size(); ++k) {
    const PlotSeries& s = series[k];
    const auto [legend_x, legend_y] = legend_at[k];
    std::string d;
    std::optional<std::pair<double, double>> last;
    for (auto [x, y] : s.points) {
      if (!drawable(chart, x, y))
        continue;
      if (s.dots_only)
        svg += marker_svg(s.marker, px(x), py(y), s.colour) + "\n";
      else
        d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "M" : " L", px(x), py(y));
      last = {x, y};
    }
    const char* dash = s.dashed ? " stroke-dasharray=\"6,4\"" : "";
    if (!d.empty())
      svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", d, s.colour, dash);
    if (!s.dots_only && s.end_marker && last)
      svg += marker_svg(s.marker, px(last->first), py(last->second), s.colour) + "\n";
    if (s.dots_only)
      svg += marker_svg(s.marker, legend_x + 8, legend_y + 6, s.colour);
    else
      svg += fmt::format("<line x1=\"{0:.0f}\" y1=\"{1:.0f}\" x2=\"{2:.0f}\" y2=\"{1:.0f}\" stroke=\"{3}\" "
                         "stroke-width=\"2\"{4}/>",
                         legend_x, legend_y + 6, legend_x + 16, s.colour, dash) +
             (s.end_marker ? marker_svg(s.marker, legend_x + 14, legend_y + 6, s.colour) : "");
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n", legend_x + 22, legend_y + 10, xml_escape(s.name));
  }
  double note_y = kHeight - 12 + kLegendRow * extra_rows;
  for (const std::string& note : chart.notes) {
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" fill=\"#b00\">{}</text>\n", l.left, note_y, xml_escape(note));
    note_y += 18;
  }
  svg += "</svg>\n";
  return svg;
}

std::string line_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<PlotSeries>& series)
{
  return line_chart_svg(LineChart{title, "", x_label, y_label, false, {}, {}}, series);
}

} // namespace perfcast
