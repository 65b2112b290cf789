#include "report/ReplayOutput.hpp"

#include <fmt/format.h>
#include <map>

namespace perfcast {

namespace {

// the smallest size of size class k: [2^(k-1), 2^k) bytes, k = 0 the empty messages
std::uint64_t size_class_low(int k) { return k == 0 ? 0 : std::uint64_t{1} << (k - 1); }

} // namespace

std::string format_replay_table(const ReplayReport& report, const Platform& platform)
{
  std::string out;
  out += fmt::format("makespan: {:.6f} s   ({} ranks, {} actions, network model {})\n", report.makespan_s,
                     report.ranks.size(), report.actions, report.network);
  if (report.phases.phases > 1 && report.phases.mean_flops > 0)
    out += fmt::format("compute phases between collectives on every rank: {}; each phase's slowest rank computes "
                       "{:.3f} x the mean\n",
                       report.phases.phases, report.phases.slowest_flops / report.phases.mean_flops);
  out += "\n";
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
  std::map<int, RankReport::Traffic> sizes;
  for (const RankReport& r : report.ranks) {
    nlohmann::json partners = nlohmann::json::array();
    for (const auto& [peer, t] : r.partners) {
      // and the pair's messages by size class, [min_bytes, messages, bytes] (kept short: n^2 pairs in an all-to-all)
      nlohmann::json by_size = nlohmann::json::array();
      if (auto it = r.partner_sizes.find(peer); it != r.partner_sizes.end())
        for (const auto& [k, s] : it->second)
          by_size.push_back({size_class_low(k), s.messages, s.bytes});
      partners.push_back({{"rank", peer}, {"messages", t.messages}, {"bytes", t.bytes}, {"sizes", std::move(by_size)}});
    }
    for (const auto& [k, t] : r.sizes) {
      sizes[k].messages += t.messages;
      sizes[k].bytes += t.bytes;
    }
    // the collectives' calls per type on communicators of all ranks: what `fit qn` expands at other counts
    nlohmann::json collectives = nlohmann::json::array();
    for (const auto& [type, c] : r.collective_calls)
      collectives.push_back(
          {{"type", type}, {"calls", c.calls}, {"root_calls", c.root_calls}, {"payload_bytes", c.payload_bytes}});
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
                     {"bytes_received", r.bytes_received},
                     {"partners", std::move(partners)},
                     {"collective_messages", r.collective.messages},
                     {"collective_bytes", r.collective.bytes},
                     {"collective_calls", std::move(collectives)}});
  }
  j["ranks"] = std::move(ranks);
  // the computation between collectives on every rank: each phase's slowest rank against the mean
  j["compute_phases"] = {{"phases", report.phases.phases},
                         {"slowest_flops", report.phases.slowest_flops},
                         {"mean_flops", report.phases.mean_flops}};
  // every message sent, by size class: [min_bytes, max_bytes]
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& [k, t] : sizes) {
    std::uint64_t low = size_class_low(k);
    std::uint64_t high = k == 0 ? 0 : (low << 1) - 1;
    classes.push_back({{"min_bytes", low}, {"max_bytes", high}, {"messages", t.messages}, {"bytes", t.bytes}});
  }
  j["message_sizes"] = std::move(classes);
  return j;
}

std::string timeline_svg(const ReplayReport& report, const std::string& title)
{
  return timeline_svg(report, TimelineLabels{title, "", {}});
}

} // namespace perfcast
