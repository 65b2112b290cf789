// The binned timeline (report/Timeline) and its picture (report/TimelineSvg).
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "report/TimelineSvg.hpp"
#include "sim/Replay.hpp"
#include "TestUtil.hpp"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <regex>

using namespace perfcast;

namespace {

std::string examples() { return test::source_dir() + "/examples"; }

ReplayReport replay_with_timeline(const std::string& index, const Platform& platform)
{
  TraceIndex trace = read_trace_index(index);
  ReplayOptions options;
  options.record_timeline = true;
  return replay_trace(trace, platform, place_by_policy(platform, "round-robin", trace.ranks()), options);
}

// Relative difference, with an absolute floor for values that are zero.
void expect_close(double got, double want, const std::string& what)
{
  EXPECT_LE(std::fabs(got - want), 1e-9 * std::max(std::fabs(want), 1e-6)) << what << ": " << got << " vs " << want;
}

// Area enclosed by an SVG path made of M, H, V and Z commands with absolute coordinates (shoelace formula).
double path_area(const std::string& d)
{
  std::regex command("([MHVZ])([-0-9.]*)(?:,([-0-9.]+))?");
  std::vector<std::pair<double, double>> points;
  double x = 0, y = 0;
  for (auto it = std::sregex_iterator(d.begin(), d.end(), command); it != std::sregex_iterator(); ++it) {
    char c = (*it)[1].str()[0];
    if (c == 'Z')
      break;
    if (c == 'M') {
      x = std::stod((*it)[2]);
      y = std::stod((*it)[3]);
    } else if (c == 'H') {
      x = std::stod((*it)[2]);
    } else {
      y = std::stod((*it)[2]);
    }
    points.emplace_back(x, y);
  }
  double twice = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    auto [x1, y1] = points[i];
    auto [x2, y2] = points[(i + 1) % points.size()];
    twice += x1 * y2 - x2 * y1;
  }
  return std::fabs(twice) / 2;
}

// Fill colour -> summed area of the paths of that colour.
std::map<std::string, double> area_by_colour(const std::string& svg)
{
  std::map<std::string, double> area;
  std::regex path("<path d=\"([^\"]*)\" fill=\"(#[0-9a-f]+)\"/>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), path); it != std::sregex_iterator(); ++it)
    area[(*it)[2]] += path_area((*it)[1]);
  return area;
}

} // namespace

TEST(Timeline, BinsConserveEachRanksTimeInEveryState)
{
  // Every span the replay reports is split over bins; summed back per rank and
  // state they give the seconds the replay reports for that rank and state.
  Platform platform = load_platform(examples() + "/platforms/hetero8.json");
  for (std::string trace : {"stencil16", "collectives8", "master_worker8", "master_worker8_elastic"}) {
    ReplayReport r = replay_with_timeline(examples() + "/traces/" + trace + "/trace.txt", platform);
    ASSERT_EQ(r.timeline.rows(), r.ranks.size()) << trace;
    for (const RankReport& rank : r.ranks) {
      KindSeconds sum = r.timeline.row_total(r.timeline.row_of(static_cast<std::size_t>(rank.rank)));
      std::string where = trace + " rank " + std::to_string(rank.rank);
      expect_close(sum[0], rank.compute_s, where + " compute");
      expect_close(sum[1], rank.communicate_s, where + " communicate");
      expect_close(sum[2], rank.wait_s, where + " wait");
      expect_close(sum[3], rank.sleep_s, where + " sleep");
    }
  }
}

TEST(Timeline, SleepIsBinnedAsSleep)
{
  // rank 0 sleeps 0.25 s then computes 1e9 flops on a 1 Gflop/s host (1 s); rank 1 only sleeps 2 s
  test::TempDir dir;
  Platform platform = parse_simgrid_platform(R"(<platform version="4.1">
    <cluster id="c" prefix="n" radical="0-1" speed="1Gf" bw="125MBps" lat="50us"/></platform>)",
                                             "c.xml");
  dir.file("r0.txt", "0 init\n0 sleep 0.25\n0 compute 1e9\n0 finalize\n");
  dir.file("r1.txt", "1 init\n1 sleep 2\n1 finalize\n");
  ReplayReport r = replay_with_timeline(dir.file("index.txt", "r0.txt\nr1.txt\n"), platform);
  KindSeconds rank0 = r.timeline.row_total(0), rank1 = r.timeline.row_total(1);
  EXPECT_DOUBLE_EQ(rank0[3], 0.25);
  EXPECT_DOUBLE_EQ(rank0[0], 1.0);
  EXPECT_DOUBLE_EQ(rank1[3], 2.0);
  EXPECT_DOUBLE_EQ(rank1[0], 0.0);
}

TEST(Timeline, BinsAfterDoublingEqualDirectBinningAtTheCoarseWidth)
{
  // Spans from a fixed linear congruential sequence, up to 3000 s: starting at
  // 2^-30 s with 64 bins, the width doubles until 64 w >= 3000 s, so w = 2^6 s
  // (64 * 32 = 2048 < 3000 <= 64 * 64 = 4096). Each final bin must hold the
  // overlap of every span with [b w, (b + 1) w), computed here directly.
  TimelineOptions options;
  options.max_bins = 64;
  options.min_bins = 64;
  const std::size_t ranks = 3;
  Timeline timeline(ranks, options);
  struct Piece {
    std::size_t rank;
    SpanKind kind;
    double start, end;
  };
  std::vector<Piece> pieces;
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * 0x1p-53;
  };
  double now = 0;
  while (now < 3000) {
    double length = next() < 0.1 ? 100 * next() : 0.5 * next();
    Piece p{static_cast<std::size_t>(next() * ranks), static_cast<SpanKind>(static_cast<int>(next() * 4)), now,
            std::min(now + length, 3000.0)};
    timeline.add(p.rank, p.kind, p.start, p.end);
    pieces.push_back(p);
    now = p.end;
  }
  ASSERT_EQ(timeline.bins(), 64u);
  ASSERT_EQ(timeline.bin_width_s(), 64.0);
  for (std::size_t b = 0; b < timeline.bins(); ++b) {
    std::vector<KindSeconds> direct(ranks, KindSeconds{});
    double lo = static_cast<double>(b) * 64, hi = lo + 64;
    for (const Piece& p : pieces)
      direct[p.rank][static_cast<std::size_t>(p.kind)] += std::max(0.0, std::min(p.end, hi) - std::max(p.start, lo));
    for (std::size_t r = 0; r < ranks; ++r)
      for (std::size_t k = 0; k < kSpanKinds; ++k)
        EXPECT_NEAR(timeline.cell(r, b)[k], direct[r][k], 1e-9) << "bin " << b << " rank " << r << " state " << k;
  }
}

TEST(Timeline, RanksShareRowsWhenTheyOutnumberThem)
{
  // 1000 ranks over at most 256 rows: rows hold 3 or 4 consecutive ranks (1000 / 256 = 3.9)
  Timeline timeline(1000);
  ASSERT_EQ(timeline.rows(), 256u);
  std::size_t covered = 0;
  for (std::size_t row = 0; row < timeline.rows(); ++row) {
    EXPECT_EQ(timeline.first_rank(row), covered);
    EXPECT_GE(timeline.ranks_in_row(row), 3u);
    EXPECT_LE(timeline.ranks_in_row(row), 4u);
    for (std::size_t r = covered; r < covered + timeline.ranks_in_row(row); ++r)
      EXPECT_EQ(timeline.row_of(r), row);
    covered += timeline.ranks_in_row(row);
  }
  EXPECT_EQ(covered, 1000u);
  // a row holds the sum of its ranks: ranks 0 to 3 share row 0
  timeline.add(0, SpanKind::Compute, 0, 1);
  timeline.add(3, SpanKind::Compute, 0, 2);
  EXPECT_EQ(timeline.row_total(0)[0], 3.0);
  // memory stays bounded however many ranks: at most 2^15 cells of four doubles
  EXPECT_LE(timeline.bins() * timeline.rows() * sizeof(KindSeconds), std::size_t{1} << 20);
}

TEST(TimelineSvg, ShowsAThreePercentStateAsThreePercentOfItsRow)
{
  // One rank, 1 s: every millisecond starts with 30 us of compute, then 970 us
  // of communication. Bins end up about 1 ms wide (2^-10 s), so each holds a
  // stretch of both states; the majority colour per column hid the compute
  // altogether. Stacked shares give compute 3% of the row's drawn area.
  Timeline timeline(1);
  for (int i = 0; i < 1000; ++i) {
    double t = i * 1e-3;
    timeline.add(0, SpanKind::Compute, t, t + 30e-6);
    timeline.add(0, SpanKind::Communicate, t + 30e-6, t + 1e-3);
  }
  ReplayReport report;
  report.makespan_s = 1.0;
  report.network = "smpi";
  report.ranks.resize(1);
  report.timeline = std::move(timeline);
  auto area = area_by_colour(timeline_svg(report, TimelineLabels{"t.txt", "p.xml", {"host-a"}}));
  double compute = area["#4c78a8"], whole = area["#f58518"]; // communicate is drawn over compute's band and below
  ASSERT_GT(whole, 0);
  EXPECT_NEAR(compute / whole, 0.03, 0.001);
}

TEST(TimelineSvg, NamesTracePlatformModelAndHostsAndIsDeterministic)
{
  Platform platform = load_platform(examples() + "/platforms/hetero8.json");
  std::string index = examples() + "/traces/stencil16/trace.txt";
  auto draw = [&] {
    ReplayReport r = replay_with_timeline(index, platform);
    return timeline_svg(r, TimelineLabels{"stencil16/trace.txt", "hetero8.json", rank_host_names(r, platform)});
  };
  std::string svg = draw();
  EXPECT_EQ(svg, draw());
  EXPECT_NE(svg.find("stencil16/trace.txt on hetero8.json"), std::string::npos);
  EXPECT_NE(svg.find("network model smpi, 16 ranks"), std::string::npos);
  EXPECT_NE(svg.find(">0 e5620-0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">15 e52450-1</text>"), std::string::npos);
  for (const char* state : {"compute", "communicate", "wait for partner", "sleep"})
    EXPECT_NE(svg.find(std::string(">") + state + "</text>"), std::string::npos) << state;
}

TEST(TimelineSvg, TimeTicksAreRoundAndInsideThePicture)
{
  // makespan 63.9146 ms: ticks every 10 ms from 0 to 60, none past the end,
  // and no centred label reaching out of the picture (11 px text: at most 6.6 px a character)
  Timeline timeline(2);
  timeline.add(0, SpanKind::Compute, 0, 0.0639146);
  timeline.add(1, SpanKind::Wait, 0, 0.0639146);
  ReplayReport report;
  report.makespan_s = 0.0639146;
  report.network = "smpi";
  report.ranks.resize(2);
  report.timeline = std::move(timeline);
  std::string svg = timeline_svg(report, TimelineLabels{"t.txt", "p.xml", {}});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("<svg [^>]*width=\"([0-9.]+)\"")));
  double width = std::stod(m[1]);
  std::vector<std::string> ticks;
  std::regex text("<text x=\"([-0-9.]+)\" y=\"[-0-9.]+\" text-anchor=\"middle\">([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) {
    double x = std::stod((*it)[1]), half = 3.3 * static_cast<double>((*it)[2].length());
    EXPECT_GE(x - half, 0) << (*it)[2];
    EXPECT_LE(x + half, width) << (*it)[2];
    ticks.push_back((*it)[2]);
  }
  std::vector<std::string> expected{"0", "10", "20", "30", "40", "50", "60", "simulated time (ms)"};
  EXPECT_EQ(ticks, expected);
}
