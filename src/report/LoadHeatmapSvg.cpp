#include "report/LoadHeatmapSvg.hpp"

#include "report/Axis.hpp"
#include "report/SvgText.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {

namespace {

// White for no load, through yellow and orange, to dark red for the largest.
std::string load_colour(double share)
{
  struct Stop {
    double at;
    int r, g, b;
  };
  static const Stop stops[] = {{0.0, 255, 255, 255}, {0.35, 255, 230, 120}, {0.7, 240, 120, 40}, {1.0, 150, 20, 20}};
  share = std::clamp(share, 0.0, 1.0);
  for (std::size_t i = 1; i < std::size(stops); ++i) {
    if (share > stops[i].at && i + 1 < std::size(stops))
      continue;
    const Stop& a = stops[i - 1];
    const Stop& b = stops[i];
    double t = (share - a.at) / (b.at - a.at);
    auto mix = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
    return fmt::format("#{:02x}{:02x}{:02x}", mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
  }
  return "#961414";
}

// One panel at vertical offset `top`; returns its height.
double draw_panel(std::string& svg, const HeatmapPanel& panel, double peak, double left, double top, double plot_w,
                  double cell_h)
{
  const auto& loads = panel.loads;
  std::size_t iterations = loads.size();
  std::size_t cores = iterations ? loads[0].size() : 0;
  double plot_h = cell_h * static_cast<double>(cores);
  double cell_w = iterations ? plot_w / static_cast<double>(iterations) : plot_w;
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" font-weight=\"bold\">{}</text>\n", left, top - 6,
                     xml_escape(panel.label));
  // neighbouring cells of a row with the same colour are drawn as one rectangle
  for (std::size_t c = 0; c < cores; ++c) {
    double y = top + cell_h * static_cast<double>(c);
    std::size_t i = 0;
    while (i < iterations) {
      std::string colour = load_colour(peak > 0 ? loads[i][c] / peak : 0.0);
      std::size_t j = i + 1;
      while (j < iterations && load_colour(peak > 0 ? loads[j][c] / peak : 0.0) == colour)
        ++j;
      svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"/>\n",
                         left + cell_w * static_cast<double>(i), y, cell_w * static_cast<double>(j - i), cell_h,
                         colour);
      i = j;
    }
  }
  svg += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.2f}\" fill=\"none\" "
                     "stroke=\"#333\"/>\n",
                     left, top, plot_w, plot_h);
  // core labels (about 16 at most) and iteration ticks
  std::size_t every = std::max<std::size_t>(1, (cores + 15) / 16);
  for (std::size_t c = 0; c < cores; c += every)
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.2f}\" text-anchor=\"end\" dominant-baseline=\"middle\" "
                       "font-size=\"10\">{}</text>\n",
                       left - 6, top + cell_h * (static_cast<double>(c) + 0.5), c);
  svg += fmt::format("<text x=\"18\" y=\"{:.0f}\" transform=\"rotate(-90 18 {:.0f})\" text-anchor=\"middle\">core"
                     "</text>\n",
                     top + plot_h / 2, top + plot_h / 2);
  if (iterations > 0) {
    double step = nice_step(static_cast<double>(iterations), 8);
    for (double t = 0; t <= static_cast<double>(iterations) + 1e-9; t += step)
      svg += fmt::format("<text x=\"{:.2f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n", left + cell_w * t,
                         top + plot_h + 16, format_tick(t, step));
  }
  return plot_h + 22;
}

} // namespace

std::string load_heatmap_svg(const std::vector<HeatmapPanel>& panels, const HeatmapLabels& labels)
{
  double peak = 0;
  std::size_t cores = 0;
  for (const HeatmapPanel& p : panels)
    for (const auto& row : p.loads) {
      cores = std::max(cores, row.size());
      for (double l : row)
        peak = std::max(peak, l);
    }
  const double left = 70, top = 70, plot_w = 720, gap = 34;
  double cell_h = cores ? std::clamp(360.0 / static_cast<double>(cores * std::max<std::size_t>(1, panels.size())),
                                     2.0, 24.0)
                        : 24.0;
  double panels_h = 0;
  for (const HeatmapPanel& p : panels)
    panels_h += cell_h * static_cast<double>(p.loads.empty() ? 0 : p.loads[0].size()) + 22 + gap;
  double width = left + plot_w + 110, height = top + panels_h + 30;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width, height);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"22\" font-size=\"15\">{}</text>\n", left, xml_escape(labels.title));
  if (!labels.subtitle.empty())
    svg += fmt::format("<text x=\"{:.0f}\" y=\"40\" fill=\"#555\">{}</text>\n", left, xml_escape(labels.subtitle));
  double y = top;
  for (const HeatmapPanel& p : panels)
    y += draw_panel(svg, p, peak, left, y, plot_w, cell_h) + gap;
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">iteration (interval between migration "
                     "points)</text>\n",
                     left + plot_w / 2, y - gap + 14);
  // colour legend
  double lx = left + plot_w + 30, lh = 200;
  svg += svg_colour_scale(lx, top, lh, load_colour);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">{:.3g} s</text>\n", lx + 20, top + 10, peak);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">0 s</text>\n", lx + 20, top + lh);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">compute</text>\n", lx - 4, top + lh + 18);
  svg += "</svg>\n";
  return svg;
}

} // namespace perfcast
