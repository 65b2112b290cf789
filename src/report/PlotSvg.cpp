#include "report/PlotSvg.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {

std::string line_chart_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<PlotSeries>& series)
{
  constexpr double W = 760, H = 440, L = 80, R = 20, T = 40, B = 60;
  double xmin = 1e300, xmax = -1e300, ymax = 0;
  for (const auto& s : series)
    for (auto [x, y] : s.points) {
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymax = std::max(ymax, y);
    }
  if (xmin > xmax) {
    xmin = 0;
    xmax = 1;
  }
  if (xmax == xmin)
    xmax = xmin + 1;
  if (ymax <= 0)
    ymax = 1;
  ymax *= 1.05;
  auto px = [&](double x) { return L + (x - xmin) / (xmax - xmin) * (W - L - R); };
  auto py = [&](double y) { return H - B - y / ymax * (H - T - B); };
  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                                "font-family=\"sans-serif\" font-size=\"12\">\n",
                                W, H);
  svg += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\">{}</text>\n", L, title);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n", L, H - B, W - R);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n", L, H - B, T);
  for (int i = 0; i <= 5; ++i) {
    double x = xmin + (xmax - xmin) * i / 5, y = ymax * i / 5;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:.4g}</text>\n", px(x), H - B + 18, x);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.4g}</text>\n", L - 6, py(y) + 4, y);
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#ddd\"/>\n", L, py(y), W - R);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2, H - 18, x_label);
  svg += fmt::format("<text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">{}</text>\n",
                     (T + H - B) / 2, (T + H - B) / 2, y_label);
  double legend_y = T + 6;
  for (const auto& s : series) {
    if (s.dots_only) {
      for (auto [x, y] : s.points)
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>\n", px(x), py(y), s.colour);
    } else if (!s.points.empty()) {
      std::string d;
      for (auto [x, y] : s.points)
        d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "M" : " L", px(x), py(y));
      svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", d, s.colour);
    }
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                       "<text x=\"{}\" y=\"{}\">{}</text>\n",
                       W - R - 200, legend_y, s.colour, W - R - 182, legend_y + 10, s.name);
    legend_y += 18;
  }
  svg += "</svg>\n";
  return svg;
}

} // namespace perfcast
