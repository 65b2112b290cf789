#pragma once
// Per-core load per iteration as an SVG heatmap (Tesser et al. 2016, Figure
// 6a): cores by iteration, the colour of a cell its compute time.
#include <string>
#include <vector>

namespace perfcast {

/// Titles of a load heatmap.
struct HeatmapLabels {
  std::string title;
  std::string subtitle;
};

/// One heatmap: `loads[i][c]` is core c's compute seconds in iteration i.
struct HeatmapPanel {
  std::string label;
  std::vector<std::vector<double>> loads;
};

/// The panels stacked, sharing one colour scale (white: idle; dark red: the largest load of any panel).
std::string load_heatmap_svg(const std::vector<HeatmapPanel>& panels, const HeatmapLabels& labels);

} // namespace perfcast
