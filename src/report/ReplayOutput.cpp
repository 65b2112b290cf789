#include "report/ReplayOutput.hpp"

#include <fmt/format.h>
#include <iterator>
#include <map>
#include <sstream>

namespace perfcast {

namespace {

// the smallest size of size class k: [2^(k-1), 2^k) bytes, k = 0 the empty messages
std::uint64_t size_class_low(int k) { return k == 0 ? 0 : std::uint64_t{1} << (k - 1); }

} // namespace

std::vector<ColumnSummary> summarize_ranks(const ReplayReport& report)
{
  struct Column {
    const char* name;
    double (*get)(const RankReport&);
  };
  static const Column columns[] = {
      {"finish_s", [](const RankReport& r) { return r.finish_s; }},
      {"compute_s", [](const RankReport& r) { return r.compute_s; }},
      {"comm_s", [](const RankReport& r) { return r.communicate_s; }},
      {"wait_s", [](const RankReport& r) { return r.wait_s; }},
      {"sleep_s", [](const RankReport& r) { return r.sleep_s; }},
      {"msgs_out", [](const RankReport& r) { return static_cast<double>(r.messages_sent); }},
      {"bytes_out", [](const RankReport& r) { return static_cast<double>(r.bytes_sent); }},
      {"msgs_in", [](const RankReport& r) { return static_cast<double>(r.messages_received); }},
      {"bytes_in", [](const RankReport& r) { return static_cast<double>(r.bytes_received); }},
  };
  std::vector<ColumnSummary> out;
  for (const Column& c : columns) {
    ColumnSummary s;
    s.name = c.name;
    double sum = 0;
    for (const RankReport& r : report.ranks) {
      double v = c.get(r);
      sum += v;
      if (v < s.min || s.min_rank < 0) {
        s.min = v;
        s.min_rank = r.rank;
      }
      if (v > s.max || s.max_rank < 0) {
        s.max = v;
        s.max_rank = r.rank;
      }
    }
    s.mean = report.ranks.empty() ? 0 : sum / static_cast<double>(report.ranks.size());
    out.push_back(s);
  }
  return out;
}

void write_replay_table(std::ostream& out, const ReplayReport& report, const Platform& platform, RankRows rows)
{
  out << fmt::format("makespan: {:.6f} s   ({} ranks, {} actions, network model {})\n", report.makespan_s,
                     report.ranks.size(), report.actions, report.network);
  if (report.phases.phases > 1 && report.phases.mean_flops > 0)
    out << fmt::format("compute phases between collectives on every rank: {}; each phase's slowest rank computes "
                       "{:.3f} x the mean\n",
                       report.phases.phases, report.phases.slowest_flops / report.phases.mean_flops);
  out << "\n";
  bool every_rank = rows == RankRows::All || (rows == RankRows::Auto && report.ranks.size() <= kRowsByDefault);
  if (!every_rank) {
    out << fmt::format("over the {} ranks (--per-rank prints a row per rank):\n", report.ranks.size());
    out << fmt::format("{:<10} {:>16} {:>8} {:>16} {:>16} {:>8}\n", "", "min", "rank", "mean", "max", "rank");
    for (const ColumnSummary& c : summarize_ranks(report)) {
      bool seconds = c.name.ends_with("_s");
      auto number = [&](double v) { return seconds ? fmt::format("{:.6f}", v) : fmt::format("{:.0f}", v); };
      out << fmt::format("{:<10} {:>16} {:>8} {:>16} {:>16} {:>8}\n", c.name, number(c.min), c.min_rank,
                         seconds ? fmt::format("{:.6f}", c.mean) : fmt::format("{:.1f}", c.mean), number(c.max),
                         c.max_rank);
    }
    return;
  }
  out << fmt::format("{:>5} {:<16} {:>12} {:>12} {:>12} {:>12} {:>9} {:>12} {:>9} {:>12}\n", "rank", "host",
                     "finish_s", "compute_s", "comm_s", "wait_s", "msgs_out", "bytes_out", "msgs_in", "bytes_in");
  std::string line;
  for (const RankReport& r : report.ranks) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{:>5} {:<16} {:>12.6f} {:>12.6f} {:>12.6f} {:>12.6f} {:>9} {:>12} {:>9} {:>12}\n",
                   r.rank, platform.hosts()[static_cast<std::size_t>(r.host)].name, r.finish_s, r.compute_s,
                   r.communicate_s, r.wait_s, r.messages_sent, r.bytes_sent, r.messages_received, r.bytes_received);
    out << line;
  }
}

std::string format_replay_table(const ReplayReport& report, const Platform& platform, RankRows rows)
{
  std::ostringstream out;
  write_replay_table(out, report, platform, rows);
  return out.str();
}

namespace {

nlohmann::json rank_json(const RankReport& r, const Platform& platform)
{
  nlohmann::json partners = nlohmann::json::array();
  for (const auto& [peer, t] : r.partners) {
    // and the pair's messages by size class, [min_bytes, messages, bytes] (kept short: n^2 pairs in an all-to-all)
    nlohmann::json by_size = nlohmann::json::array();
    if (auto it = r.partner_sizes.find(peer); it != r.partner_sizes.end())
      for (const auto& [k, s] : it->second)
        by_size.push_back({size_class_low(k), s.messages, s.bytes});
    partners.push_back({{"rank", peer}, {"messages", t.messages}, {"bytes", t.bytes}, {"sizes", std::move(by_size)}});
  }
  // the collectives' calls per type on communicators of all ranks: what `fit qn` expands at other counts
  nlohmann::json collectives = nlohmann::json::array();
  for (const auto& [type, c] : r.collective_calls)
    collectives.push_back(
        {{"type", type}, {"calls", c.calls}, {"root_calls", c.root_calls}, {"payload_bytes", c.payload_bytes}});
  return {{"rank", r.rank},
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
          {"bytes_received", r.bytes_received},
          {"partners", std::move(partners)},
          {"collective_messages", r.collective.messages},
          {"collective_bytes", r.collective.bytes},
          {"collective_calls", std::move(collectives)}};
}

// the computation between collectives on every rank: each phase's slowest rank against the mean
nlohmann::json phases_json(const ComputePhases& phases)
{
  return {{"phases", phases.phases}, {"slowest_flops", phases.slowest_flops}, {"mean_flops", phases.mean_flops}};
}

// every message sent, by size class: [min_bytes, max_bytes]
nlohmann::json message_sizes_json(const ReplayReport& report)
{
  std::map<int, RankReport::Traffic> sizes;
  for (const RankReport& r : report.ranks)
    for (const auto& [k, t] : r.sizes) {
      sizes[k].messages += t.messages;
      sizes[k].bytes += t.bytes;
    }
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& [k, t] : sizes) {
    std::uint64_t low = size_class_low(k);
    std::uint64_t high = k == 0 ? 0 : (low << 1) - 1;
    classes.push_back({{"min_bytes", low}, {"max_bytes", high}, {"messages", t.messages}, {"bytes", t.bytes}});
  }
  return classes;
}

// `value` as dump(2) prints it `depth` levels down: every line after the first indented by 2 x depth
void write_nested(std::ostream& out, const nlohmann::json& value, int depth)
{
  std::string text = value.dump(2);
  std::string pad(static_cast<std::size_t>(2 * depth), ' ');
  std::size_t from = 0;
  for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
    out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from)) << pad;
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

} // namespace

nlohmann::json replay_to_json(const ReplayReport& report, const Platform& platform)
{
  nlohmann::json j;
  j["makespan_s"] = report.makespan_s;
  j["network"] = report.network;
  j["actions"] = report.actions;
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankReport& r : report.ranks)
    ranks.push_back(rank_json(r, platform));
  j["ranks"] = std::move(ranks);
  j["compute_phases"] = phases_json(report.phases);
  j["message_sizes"] = message_sizes_json(report);
  return j;
}

void write_replay_json(std::ostream& out, const ReplayReport& report, const Platform& platform, bool per_rank)
{
  // the members in the order of nlohmann's sorted keys, so that the text is replay_to_json(...).dump(2)
  out << "{\n  \"actions\": " << nlohmann::json(report.actions).dump() << ",\n  \"compute_phases\": ";
  write_nested(out, phases_json(report.phases), 1);
  out << ",\n  \"makespan_s\": " << nlohmann::json(report.makespan_s).dump() << ",\n  \"message_sizes\": ";
  write_nested(out, message_sizes_json(report), 1);
  out << ",\n  \"network\": " << nlohmann::json(report.network).dump();
  if (per_rank) {
    out << ",\n  \"ranks\": ";
    if (report.ranks.empty()) {
      out << "[]";
    } else {
      out << "[";
      const char* sep = "\n    ";
      for (const RankReport& r : report.ranks) {
        out << sep;
        write_nested(out, rank_json(r, platform), 2);
        sep = ",\n    ";
      }
      out << "\n  ]";
    }
  } else {
    // over the ranks, per figure: min, mean, max and the ranks of min and max
    nlohmann::json summary = nlohmann::json::object();
    for (const ColumnSummary& c : summarize_ranks(report))
      summary[c.name] = {{"min", c.min}, {"min_rank", c.min_rank}, {"mean", c.mean}, {"max", c.max}, {"max_rank", c.max_rank}};
    out << ",\n  \"rank_summary\": ";
    write_nested(out, summary, 1);
  }
  out << "\n}";
}

std::string timeline_svg(const ReplayReport& report, const std::string& title)
{
  return timeline_svg(report, TimelineLabels{title, "", {}});
}

} // namespace perfcast
