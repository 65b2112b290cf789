#include "report/TimelineSvg.hpp"

#include "report/Axis.hpp"
#include "report/SvgText.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {
namespace {

constexpr std::array<const char*, kSpanKinds> kColour{"#4c78a8", "#f58518", "#e45756", "#bab0ac"};
constexpr std::array<const char*, kSpanKinds> kStateName{"compute", "communicate", "wait for partner", "sleep"};
constexpr double kPlotWidth = 960; // pixels of simulated time
constexpr double kRight = 48;      // room for half of the last tick label
constexpr double kTop = 62;        // below the two title lines
constexpr double kCharWidth = 6.6; // of an 11-pixel sans-serif character, generously

std::string row_label(const Timeline& timeline, std::size_t row, const std::vector<std::string>& hosts)
{
  std::size_t first = timeline.first_rank(row), last = first + timeline.ranks_in_row(row) - 1;
  std::string label = first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
  if (hosts.size() >= timeline.ranks()) {
    bool one_host = std::all_of(hosts.begin() + static_cast<std::ptrdiff_t>(first),
                                hosts.begin() + static_cast<std::ptrdiff_t>(last + 1),
                                [&](const std::string& h) { return h == hosts[first]; });
    label += " " + (one_host ? hosts[first] : hosts[first] + ".." + hosts[last]);
  }
  return label;
}

// One row: the cumulative shares drawn as filled step areas from the row's
// base, widest (all states) first, so each state shows as its own band. A
// path only turns where its height changes, and an area identical to the one
// drawn over it is left out.
std::string row_paths(const std::vector<TimelineColumn>& columns, double left, double makespan_s, double base,
                      double height)
{
  auto x_of = [&](double t) { return fmt::format("{:.1f}", left + t / makespan_s * kPlotWidth); };
  const std::string base_y = fmt::format("{:.2f}", base);
  std::array<std::string, kSpanKinds> paths;
  for (std::size_t k = 0; k < kSpanKinds; ++k) {
    std::string d, pen_y = base_y;
    for (const TimelineColumn& c : columns) {
      double cumulative = 0;
      for (std::size_t j = 0; j <= k; ++j)
        cumulative += c.share[j];
      std::string y = fmt::format("{:.2f}", base - std::clamp(cumulative, 0.0, 1.0) * height);
      if (y == pen_y)
        continue;
      d += d.empty() ? fmt::format("M{},{}V{}", x_of(c.start_s), base_y, y) : fmt::format("H{}V{}", x_of(c.start_s), y);
      pen_y = y;
    }
    if (!d.empty())
      paths[k] = fmt::format("{}H{}V{}Z", d, x_of(columns.back().end_s), base_y);
  }
  std::string out;
  for (std::size_t k = kSpanKinds; k-- > 0;)
    if (!paths[k].empty() && (k == 0 || paths[k] != paths[k - 1]))
      out += fmt::format("<path d=\"{}\" fill=\"{}\"/>\n", paths[k], kColour[k]);
  return out;
}

} // namespace

std::vector<TimelineColumn> timeline_columns(const Timeline& timeline, std::size_t row, double makespan_s)
{
  std::vector<TimelineColumn> columns;
  if (!timeline.enabled() || row >= timeline.rows() || !(makespan_s > 0))
    return columns;
  double width = timeline.bin_width_s();
  auto used = static_cast<std::size_t>(std::ceil(makespan_s / width));
  used = std::clamp<std::size_t>(used, 1, timeline.bins());
  double ranks = static_cast<double>(timeline.ranks_in_row(row));
  for (std::size_t b = 0; b < used; ++b) {
    double start = static_cast<double>(b) * width;
    double end = b + 1 == used ? std::max(makespan_s, start) : start + width;
    TimelineColumn c{start, end, {}};
    const KindSeconds& seconds = timeline.cell(row, b);
    for (std::size_t k = 0; k < kSpanKinds; ++k)
      c.share[k] = end > start ? seconds[k] / (ranks * (end - start)) : 0.0;
    columns.push_back(c);
  }
  return columns;
}

std::vector<std::string> rank_host_names(const ReplayReport& report, const Platform& platform)
{
  std::vector<std::string> names;
  for (const RankReport& r : report.ranks)
    names.push_back(platform.hosts()[static_cast<std::size_t>(r.host)].name);
  return names;
}

std::string timeline_svg(const ReplayReport& report, const TimelineLabels& labels)
{
  const Timeline& timeline = report.timeline;
  std::size_t rows = timeline.rows();
  double makespan = report.makespan_s > 0 ? report.makespan_s : 1.0;
  // rows shrink to keep the picture under about 800 pixels tall
  double pitch = rows ? std::clamp(std::floor(800.0 / static_cast<double>(rows)), 3.0, 16.0) : 16.0;
  double bar = pitch >= 8 ? pitch - 2 : pitch;
  std::size_t label_every = pitch >= 11 ? 1 : static_cast<std::size_t>(std::ceil(11.0 / pitch));

  std::vector<std::string> row_labels;
  std::size_t widest = 4;
  for (std::size_t r = 0; r < rows; ++r) {
    row_labels.push_back(xml_escape(row_label(timeline, r, labels.hosts)));
    widest = std::max(widest, row_labels.back().size());
  }
  double left = std::ceil(12 + static_cast<double>(widest) * kCharWidth);
  double axis_y = kTop + static_cast<double>(rows) * pitch + 4;
  double width = left + kPlotWidth + kRight, height = axis_y + 92;

  TimeUnit unit = time_unit_for(makespan);
  double span_in_unit = makespan * unit.per_second;
  double step = nice_step(span_in_unit, 8);
  std::vector<double> ticks = nice_ticks(0, span_in_unit, 8);
  auto x_of = [&](double value_in_unit) { return left + value_in_unit / span_in_unit * kPlotWidth; };

  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
                                "font-family=\"sans-serif\" font-size=\"11\">\n",
                                width, height);
  svg += fmt::format("<rect width=\"{:.0f}\" height=\"{:.0f}\" fill=\"white\"/>\n", width, height);
  std::string title = labels.platform.empty() ? labels.trace : labels.trace + " on " + labels.platform;
  svg += fmt::format("<text x=\"{:.0f}\" y=\"22\" font-size=\"14\">{}</text>\n", left, xml_escape(title));
  svg += fmt::format("<text x=\"{:.0f}\" y=\"40\">network model {}, {} ranks, makespan {}</text>\n", left,
                     xml_escape(report.network), report.ranks.size(),
                     fmt::format("{:.6g} {}", span_in_unit, unit.name));
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"end\" font-weight=\"bold\">{}</text>\n",
                     left - 6, kTop - 6, labels.hosts.empty() ? "rank" : "rank host");
  for (double t : ticks)
    svg += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.0f}\" x2=\"{0:.2f}\" y2=\"{2:.0f}\" stroke=\"#e6e6e6\"/>\n",
                       x_of(t), kTop, axis_y);

  for (std::size_t r = 0; r < rows; ++r) {
    double top = kTop + static_cast<double>(r) * pitch;
    if (r % label_every == 0)
      svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6,
                         top + bar / 2 + 4, row_labels[r]);
    svg += row_paths(timeline_columns(timeline, r, makespan), left, makespan, top + bar, bar);
  }

  svg += fmt::format("<line x1=\"{0:.0f}\" y1=\"{1:.0f}\" x2=\"{2:.0f}\" y2=\"{1:.0f}\" stroke=\"black\"/>\n", left,
                     axis_y, left + kPlotWidth);
  for (double t : ticks)
    svg += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1:.0f}\" x2=\"{0:.2f}\" y2=\"{2:.0f}\" stroke=\"black\"/>"
                       "<text x=\"{0:.2f}\" y=\"{3:.0f}\" text-anchor=\"middle\">{4}</text>\n",
                       x_of(t), axis_y, axis_y + 5, axis_y + 18, format_tick(t, step));
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">simulated time ({})</text>\n",
                     left + kPlotWidth / 2, axis_y + 36, unit.name);

  double legend_y = axis_y + 52, legend_x = left;
  for (std::size_t k = 0; k < kSpanKinds; ++k) {
    svg += fmt::format("<rect x=\"{0:.0f}\" y=\"{1:.0f}\" width=\"12\" height=\"12\" fill=\"{2}\"/>"
                       "<text x=\"{3:.0f}\" y=\"{4:.0f}\">{5}</text>\n",
                       legend_x, legend_y, kColour[k], legend_x + 17, legend_y + 10, kStateName[k]);
    legend_x += 40 + static_cast<double>(std::string(kStateName[k]).size()) * kCharWidth;
  }
  double bin_in_unit = timeline.bin_width_s() * unit.per_second;
  std::string note =
      fmt::format("each column: share of the row's time in each state over {:.3g} {}", bin_in_unit, unit.name);
  std::size_t most = 1;
  for (std::size_t r = 0; r < rows; ++r)
    most = std::max(most, timeline.ranks_in_row(r));
  if (most > 1)
    note += fmt::format("; rows add up to {} ranks", most);
  note += "; blank: finished";
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" fill=\"#555\">{}</text>\n", left, legend_y + 32, note);
  svg += "</svg>\n";
  return svg;
}

} // namespace perfcast
