#include "report/ReplayOutput.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace perfcast {

std::string format_replay_table(const ReplayReport& report, const Platform& platform)
{
  std::string out;
  out += fmt::format("makespan: {:.6f} s   ({} ranks, {} actions, network model {})\n\n", report.makespan_s,
                     report.ranks.size(), report.actions, report.network);
  out += fmt::format("{:>5} {:<16} {:>12} {:>12} {:>12} {:>12} {:>9} {:>12} {:>9} {:>12}\n", "rank", "host",
                     "finish_s", "compute_s", "comm_s", "wait_s", "msgs_out", "bytes_out", "msgs_in", "bytes_in");
  for (const RankReport& r : report.ranks)
    out += fmt::format("{:>5} {:<16} {:>12.6f} {:>12.6f} {:>12.6f} {:>12.6f} {:>9} {:>12} {:>9} {:>12}\n", r.rank,
                       platform.hosts()[static_cast<std::size_t>(r.host)].name, r.finish_s, r.compute_s,
                       r.communicate_s, r.wait_s, r.messages_sent, r.bytes_sent, r.messages_received,
                       r.bytes_received);
  return out;
}

nlohmann::json replay_to_json(const ReplayReport& report, const Platform& platform)
{
  nlohmann::json j;
  j["makespan_s"] = report.makespan_s;
  j["network"] = report.network;
  j["actions"] = report.actions;
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankReport& r : report.ranks)
    ranks.push_back({{"rank", r.rank},
                     {"host", platform.hosts()[static_cast<std::size_t>(r.host)].name},
                     {"finish_s", r.finish_s},
                     {"compute_s", r.compute_s},
                     {"communicate_s", r.communicate_s},
                     {"wait_s", r.wait_s},
                     {"sleep_s", r.sleep_s},
                     {"actions", r.actions},
                     {"messages_sent", r.messages_sent},
                     {"bytes_sent", r.bytes_sent},
                     {"messages_received", r.messages_received},
                     {"bytes_received", r.bytes_received}});
  j["ranks"] = std::move(ranks);
  return j;
}

std::string timeline_svg(const ReplayReport& report, const std::string& title)
{
  // Each rank's row is cut into pixel columns; a column takes the colour of the
  // activity that filled most of it, and equal neighbours are merged.
  constexpr int kWidth = 1000, kLeft = 60, kTop = 40, kRow = 14;
  const std::array<const char*, 4> colour{"#4c78a8", "#f58518", "#e45756", "#bab0ac"};
  const std::array<const char*, 4> label{"compute", "communicate", "wait for partner", "sleep"};
  std::size_t P = report.ranks.size();
  double span_s = report.makespan_s > 0 ? report.makespan_s : 1.0;
  std::vector<std::array<double, 4>> busy(P * kWidth, std::array<double, 4>{0, 0, 0, 0});
  double px = span_s / kWidth;
  for (const Span& s : report.timeline) {
    int a = std::clamp(static_cast<int>(s.start_s / px), 0, kWidth - 1);
    int b = std::clamp(static_cast<int>(s.end_s / px), 0, kWidth - 1);
    for (int c = a; c <= b; ++c) {
      double lo = std::max(s.start_s, c * px), hi = std::min(s.end_s, (c + 1) * px);
      if (hi > lo)
        busy[static_cast<std::size_t>(s.rank) * kWidth + static_cast<std::size_t>(c)][static_cast<std::size_t>(s.kind)] += hi - lo;
    }
  }
  int height = kTop + static_cast<int>(P) * kRow + 50;
  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                                "font-family=\"sans-serif\" font-size=\"11\">\n",
                                kLeft + kWidth + 20, height);
  svg += fmt::format("<text x=\"{}\" y=\"20\" font-size=\"14\">{} (makespan {:.6f} s)</text>\n", kLeft, title,
                     report.makespan_s);
  for (std::size_t r = 0; r < P; ++r) {
    int y = kTop + static_cast<int>(r) * kRow;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, y + kRow - 4, r);
    int run_start = -1, run_kind = -1;
    auto flush = [&](int end) {
      if (run_kind >= 0)
        svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", kLeft + run_start, y,
                           end - run_start, kRow - 2, colour[static_cast<std::size_t>(run_kind)]);
    };
    for (int c = 0; c < kWidth; ++c) {
      const auto& b = busy[r * kWidth + static_cast<std::size_t>(c)];
      int kind = -1;
      double best = 0;
      for (int k = 0; k < 4; ++k)
        if (b[static_cast<std::size_t>(k)] > best) {
          best = b[static_cast<std::size_t>(k)];
          kind = k;
        }
      if (kind != run_kind) {
        flush(c);
        run_start = c;
        run_kind = kind;
      }
    }
    flush(kWidth);
  }
  int axis_y = kTop + static_cast<int>(P) * kRow + 4;
  svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", kLeft, axis_y,
                     kLeft + kWidth, axis_y);
  for (int i = 0; i <= 5; ++i)
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:.4g} s</text>\n", kLeft + i * kWidth / 5,
                       axis_y + 14, span_s * i / 5);
  for (int k = 0; k < 4; ++k)
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                       kLeft + k * 160, axis_y + 24, colour[static_cast<std::size_t>(k)], kLeft + k * 160 + 14,
                       axis_y + 33, label[static_cast<std::size_t>(k)]);
  svg += "</svg>\n";
  return svg;
}

} // namespace perfcast
