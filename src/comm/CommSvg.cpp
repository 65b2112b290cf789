#include "comm/CommSvg.hpp"

#include "report/Axis.hpp"
#include "report/PlotSvg.hpp"
#include "report/SvgText.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast::comm {

namespace {

double per_iteration(std::uint64_t bytes, const CommEstimate& e)
{
  return static_cast<double>(bytes) / static_cast<double>(std::max<std::uint64_t>(e.iterations, 1));
}

// White for nothing sent, through light blue to dark blue for the largest entry.
std::string volume_colour(double share)
{
  share = std::clamp(share, 0.0, 1.0);
  auto mix = [share](int from, int to) { return static_cast<int>(std::lround(from + (to - from) * share)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(255, 8), mix(255, 48), mix(255, 107));
}

} // namespace

std::string comm_bytes_svg(const std::vector<CommEstimate>& estimates, const std::string& subtitle)
{
  PlotSeries total{"total", "#1f77b4", {}, false};
  PlotSeries p2p{"point-to-point", "#ff7f0e", {}, false};
  PlotSeries collective{"collective", "#2ca02c", {}, false};
  LineChart chart;
  chart.title = "Estimated communication per iteration";
  chart.subtitle = subtitle;
  chart.x_label = "processes";
  chart.y_label = "bytes per iteration";
  chart.log2_x = true;
  for (const CommEstimate& e : estimates) {
    double p = static_cast<double>(e.procs);
    total.points.emplace_back(p, per_iteration(e.bytes(), e));
    p2p.points.emplace_back(p, per_iteration(e.p2p_bytes, e));
    collective.points.emplace_back(p, per_iteration(e.collective_bytes, e));
    chart.x_ticks.push_back(p);
  }
  std::sort(chart.x_ticks.begin(), chart.x_ticks.end());
  chart.x_ticks.erase(std::unique(chart.x_ticks.begin(), chart.x_ticks.end()), chart.x_ticks.end());
  return line_chart_svg(chart, {total, p2p, collective});
}

std::string comm_matrix_svg(const CommEstimate& e, const std::string& subtitle)
{
  std::size_t p = e.matrix.size();
  double peak = 0;
  for (const auto& row : e.matrix)
    for (std::uint64_t b : row)
      peak = std::max(peak, per_iteration(b, e));
  const double left = 80, top = 80, side = 480;
  double cell = p ? side / static_cast<double>(p) : side;
  double width = left + side + 140, height = top + side + 60;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width, height);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"24\" font-size=\"15\">Estimated bytes per iteration, {} processes "
                     "(row sends to column)</text>\n",
                     left, e.procs);
  if (!subtitle.empty())
    svg += fmt::format("<text x=\"{:.0f}\" y=\"42\" fill=\"#555\">{}</text>\n", left, xml_escape(subtitle));
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j) {
      double bytes = per_iteration(e.matrix[i][j], e);
      if (bytes <= 0)
        continue; // the white background
      svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\">"
                         "<title>{} to {}: {:.1f} bytes</title></rect>\n",
                         left + cell * static_cast<double>(j), top + cell * static_cast<double>(i), cell, cell,
                         volume_colour(peak > 0 ? bytes / peak : 0), i, j, bytes);
    }
  svg += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" "
                     "stroke=\"#333\"/>\n",
                     left, top, side, side);
  // about 16 labels per axis at most
  std::size_t every = std::max<std::size_t>(1, (p + 15) / 16);
  for (std::size_t k = 0; k < p; k += every) {
    double at = cell * (static_cast<double>(k) + 0.5);
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.2f}\" text-anchor=\"end\" dominant-baseline=\"middle\" "
                       "font-size=\"10\">{}</text>\n",
                       left - 6, top + at, k);
    svg += fmt::format("<text x=\"{:.2f}\" y=\"{:.0f}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n",
                       left + at, top - 6, k);
  }
  svg += fmt::format("<text x=\"20\" y=\"{:.0f}\" transform=\"rotate(-90 20 {:.0f})\" text-anchor=\"middle\">"
                     "sending process</text>\n",
                     top + side / 2, top + side / 2);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">receiving process</text>\n",
                     left + side / 2, top + side + 24);
  // the colour scale, 0 at the bottom
  double lx = left + side + 30, lh = 200;
  svg += svg_colour_scale(lx, top, lh, volume_colour);
  double step = nice_step(peak > 0 ? peak : 1, 4);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" dominant-baseline=\"middle\">{} B</text>\n", lx + 22, top,
                     format_tick(peak, step));
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" dominant-baseline=\"middle\">0</text>\n", lx + 22, top + lh);
  svg += "</svg>\n";
  return svg;
}

} // namespace perfcast::comm
