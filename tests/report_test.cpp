// Chart axes (report/Axis) and the line chart (report/PlotSvg).
#include "report/Axis.hpp"
#include "report/PlotSvg.hpp"

#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <regex>

using namespace perfcast;

namespace {

// The mantissa of a power-of-ten multiple: 1, 2 or 5 for a 1-2-5 step.
double mantissa(double step) { return step / std::pow(10.0, std::floor(std::log10(step) + 1e-9)); }

struct CentredLabel {
  double x;
  std::string text;
};

// Every <text ... text-anchor="middle"> label with its x position.
std::vector<CentredLabel> centred_labels(const std::string& svg)
{
  std::vector<CentredLabel> out;
  std::regex text("<text x=\"([-0-9.]+)\" y=\"[-0-9.]+\" text-anchor=\"middle\">([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it)
    out.push_back({std::stod((*it)[1]), (*it)[2]});
  return out;
}

double svg_width(const std::string& svg)
{
  std::smatch m;
  std::regex_search(svg, m, std::regex("<svg [^>]*width=\"([0-9.]+)\""));
  return std::stod(m[1]);
}

std::vector<PlotSeries> doubling_sweep()
{
  // run time of a code with 1 s of serial work and 63 s that parallelise: 1 + 63 / p
  PlotSeries model{"queueing model", "#4c78a8", {}, false}, runs{"measured", "#e45756", {}, true};
  for (double p : {2, 4, 8, 16, 32, 64}) {
    model.points.emplace_back(p, 1 + 63 / p);
    runs.points.emplace_back(p, 1.02 * (1 + 63 / p));
  }
  return {model, runs};
}

} // namespace

TEST(Axis, TicksAreOneTwoFiveMultiplesInsideTheAxis)
{
  for (auto [lo, hi] : std::vector<std::pair<double, double>>{
           {0, 0.0639146}, {0, 16.947829}, {0, 1}, {0, 7}, {0, 123.4}, {0, 3.3e-5}, {2, 64}, {-3.7, 12.2}, {0.1, 0.13}}) {
    std::vector<double> ticks = nice_ticks(lo, hi, 8);
    ASSERT_GE(ticks.size(), 3u) << lo << ".." << hi;
    EXPECT_LE(ticks.size(), 17u) << lo << ".." << hi;
    double step = nice_step(hi - lo, 8);
    double m = mantissa(step);
    EXPECT_TRUE(std::fabs(m - 1) < 1e-9 || std::fabs(m - 2) < 1e-9 || std::fabs(m - 5) < 1e-9) << step;
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      EXPECT_GE(ticks[i], lo);
      EXPECT_LE(ticks[i], hi);
      EXPECT_NEAR(ticks[i] / step, std::round(ticks[i] / step), 1e-9) << ticks[i] << " step " << step;
      if (i > 0) {
        EXPECT_NEAR(ticks[i] - ticks[i - 1], step, 1e-9 * step);
      }
    }
    // no multiple of the step inside the axis is missing at either end
    EXPECT_LT(ticks.front() - step, lo);
    EXPECT_GT(ticks.back() + step, hi);
  }
}

TEST(Axis, StepsForKnownSpans)
{
  // 63.9 / 8 = 8.0 per tick: steps 5 and 10 give 12.8 and 6.4 ticks, 10 is nearer to 8
  EXPECT_DOUBLE_EQ(nice_step(63.9146, 8), 10);
  // 16.95 / 8 = 2.1: step 2 gives 8.5 ticks
  EXPECT_DOUBLE_EQ(nice_step(16.947829, 8), 2);
  EXPECT_DOUBLE_EQ(nice_step(1, 5), 0.2);
  // 33.15 makes 6.63 parts of 5 (1.63 from 5 parts) or 3.315 parts of 10 (1.685 from 5): steps of 5, up to 35;
  // 33.5 makes 6.7 parts of 5 (1.7 from 5) or 3.35 of 10 (1.65 from 5): steps of 10, up to 40
  EXPECT_EQ(covering_ticks(33.15, 5), (std::vector<double>{0, 5, 10, 15, 20, 25, 30, 35}));
  EXPECT_EQ(covering_ticks(33.5, 5), (std::vector<double>{0, 10, 20, 30, 40}));
  EXPECT_EQ(covering_ticks(0.9, 5).back(), 1.0);
  EXPECT_EQ(covering_ticks(30, 5).back(), 30.0);
  EXPECT_EQ(format_tick(0.05, 0.05), "0.05");
  EXPECT_EQ(format_tick(250, 50), "250");
  EXPECT_EQ(format_tick(1.5, 0.5), "1.5");
  EXPECT_EQ(format_tick(0.0025, 0.0025), "0.0025");
  EXPECT_EQ(format_tick(0, 0.2), "0.0");
}

TEST(LineChart, Log2ProcessAxisPutsTicksAtTheSweptCounts)
{
  LineChart chart{"predicted run time", "model.json on hetero8.json", "processes", "seconds", true, {}};
  ChartLayout layout = line_chart_layout(chart, doubling_sweep());
  ASSERT_EQ(layout.x_ticks.size(), 6u);
  double p = 2;
  for (std::size_t i = 0; i < layout.x_ticks.size(); ++i, p *= 2) {
    EXPECT_EQ(layout.x_ticks[i].value, p);
    EXPECT_EQ(layout.x_ticks[i].label, fmt::format("{:g}", p));
    EXPECT_GT(layout.x_ticks[i].px, layout.left);
    EXPECT_LT(layout.x_ticks[i].px, layout.right);
  }
  // doublings are equally spaced on a log2 axis
  double gap = layout.x_ticks[1].px - layout.x_ticks[0].px;
  for (std::size_t i = 2; i < layout.x_ticks.size(); ++i)
    EXPECT_NEAR(layout.x_ticks[i].px - layout.x_ticks[i - 1].px, gap, 1e-9);
  // measured dots sit on the ticks of their counts
  std::string svg = line_chart_svg(chart, doubling_sweep());
  for (const ChartTick& t : layout.x_ticks)
    EXPECT_NE(svg.find(fmt::format("<circle cx=\"{:.1f}\"", t.px)), std::string::npos) << t.value;
}

TEST(LineChart, Log2AxisTakesGivenCounts)
{
  // ticks at 3, 6 and 12: 6 lies midway between 3 and 12 on a log2 axis
  LineChart chart{"t", "", "processes", "seconds", true, {3, 6, 12}};
  PlotSeries s{"model", "#000", {{3, 4.0}, {12, 1.0}}, false};
  ChartLayout layout = line_chart_layout(chart, {s});
  ASSERT_EQ(layout.x_ticks.size(), 3u);
  EXPECT_EQ(layout.x_ticks[1].value, 6);
  EXPECT_NEAR(layout.x_ticks[1].px, (layout.x_ticks[0].px + layout.x_ticks[2].px) / 2, 1e-9);
}

TEST(LineChart, LinearAxisTicksAreRoundNotFifthsOfTheRange)
{
  // the old axis cut 2..64 into fifths: 14.4, 26.8, ...
  LineChart chart{"t", "", "processes", "seconds", false, {}};
  ChartLayout layout = line_chart_layout(chart, doubling_sweep());
  ASSERT_FALSE(layout.x_ticks.empty());
  for (const ChartTick& t : layout.x_ticks) {
    EXPECT_EQ(std::fmod(t.value, 10.0), 0.0) << t.value;
    EXPECT_EQ(t.label.find('.'), std::string::npos) << t.label;
  }
}

TEST(LineChart, ValueAxisEndsOnATickAtOrAboveTheLargestValue)
{
  // largest value 1 + 63 / 2 = 32.5, times 1.02 for the measured dots: 33.15;
  // ticks of 5 (6.6 of them, nearer 5 than 3.3 ticks of 10) end at 35
  ChartLayout layout = line_chart_layout(LineChart{"t", "", "p", "s", true, {}}, doubling_sweep());
  EXPECT_DOUBLE_EQ(layout.y_hi, 35);
  EXPECT_DOUBLE_EQ(layout.y_ticks.front().value, 0);
  EXPECT_DOUBLE_EQ(layout.y_ticks.back().value, 35);
  EXPECT_EQ(layout.y_ticks.size(), 8u);
  EXPECT_DOUBLE_EQ(layout.y_ticks.back().px, layout.top);
}

TEST(LineChart, LabelsStayInsideThePicture)
{
  // a centred label of n characters of 12 px sans-serif spans at most 7 n px
  for (bool log2 : {false, true}) {
    std::string svg = line_chart_svg(LineChart{"t", "", "processes", "seconds", log2, {}}, doubling_sweep());
    double width = svg_width(svg);
    auto labels = centred_labels(svg);
    ASSERT_FALSE(labels.empty());
    for (const auto& l : labels) {
      EXPECT_GE(l.x - 3.5 * static_cast<double>(l.text.size()), 0) << l.text;
      EXPECT_LE(l.x + 3.5 * static_cast<double>(l.text.size()), width) << l.text;
    }
  }
}

TEST(LineChart, EscapesTitles)
{
  std::string svg = line_chart_svg(LineChart{"a<b & c", "", "p", "s", false, {}}, doubling_sweep());
  EXPECT_NE(svg.find("a&lt;b &amp; c"), std::string::npos);
}
