#include "qn/CollectiveTraffic.hpp"

#include "core/Error.hpp"
#include "sim/Collectives.hpp"
#include "trace/ActionKeywords.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>
#include <set>

namespace perfcast {

namespace {

ActionType action_type_of(const std::string& type)
{
  const Keyword* k = find_keyword(type);
  if (k == nullptr || !is_collective(k->type))
    throw Error(fmt::format("'{}' is no collective (expected a collective's keyword, such as allreduce)", type));
  return k->type;
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

// One run's calls of a type as a type of the model: its mean calls per rank, its roots, its mean payload
CollectiveType type_of(const CollectiveRecord& record, int procs)
{
  CollectiveType t;
  t.type = record.type;
  double calls = sum(record.calls);
  t.calls_per_rank = calls / std::max(procs, 1);
  t.payload_bytes = calls > 0 ? record.payload_bytes / calls : 0.0;
  double rooted = sum(record.root_calls);
  if (is_rooted_collective(action_type_of(record.type)) && rooted > 0)
    for (std::size_t r = 0; r < record.root_calls.size(); ++r)
      if (record.root_calls[r] > 0)
        t.roots.emplace_back(static_cast<int>(r), record.root_calls[r] / rooted);
  t.seen_at = {procs};
  return t;
}

const CollectiveRecord* find_record(const MeasuredRun& run, const std::string& type)
{
  for (const CollectiveRecord& c : run.collectives)
    if (c.type == type)
      return &c;
  return nullptr;
}

} // namespace

double CollectiveType::payload_at(double procs) const
{
  return payload_bytes * std::pow(std::max(procs, 1.0), -exponent);
}

std::string CollectiveTraffic::describe() const
{
  std::string s;
  for (const CollectiveType& t : types)
    s += fmt::format("{}{} {:.4g}", s.empty() ? "" : ", ", t.type, t.calls_per_rank);
  return s + " calls a rank";
}

CollectiveTrafficAt collective_traffic_at(const std::vector<CollectiveType>& types, int procs)
{
  CollectiveTrafficAt at;
  int n = std::max(procs, 1);
  at.received.assign(static_cast<std::size_t>(n), 0.0);
  if (n < 2)
    return at;
  std::vector<MicroOp> ops;
  CollectiveChoice defaults; // the replay's default algorithms
  for (const CollectiveType& t : types) {
    ActionType type = action_type_of(t.type);
    // the algorithms' messages carry whole blocks (the replay's choice among them reads the block's size); a
    // mean payload of 14.4 B over calls of 8 and 16 B scales them to its bytes
    double payload = t.payload_at(n);
    auto block = static_cast<std::uint64_t>(std::max<long long>(std::llround(payload), payload > 0 ? 1 : 0));
    double scale = block > 0 ? payload / static_cast<double>(block) : 0.0;
    std::vector<std::pair<int, double>> roots = t.roots;
    if (roots.empty())
      roots = {{0, 1.0}};
    for (const auto& [root, share] : roots) {
      double calls = t.calls_per_rank * share;
      Action call = uniform_collective(type, block, root % n, n);
      for (int rank = 0; rank < n; ++rank) {
        ops.clear();
        expand_collective(call, rank, n, defaults, ops);
        for (const MicroOp& op : ops) {
          if (op.code != OpCode::Send && op.code != OpCode::Isend)
            continue;
          double bytes = static_cast<double>(op.bytes) * scale;
          at.messages += calls;
          at.bytes += calls * bytes;
          at.received[static_cast<std::size_t>(op.peer)] += calls * bytes;
          at.sizes[bytes] += calls;
          if (op.peer == rank) {
            at.self_messages += calls;
            at.self_bytes += calls * bytes;
          }
        }
      }
    }
  }
  return at;
}

CollectiveTrafficAt recorded_collective_traffic(const MeasuredRun& run)
{
  std::vector<CollectiveType> types;
  for (const CollectiveRecord& c : run.collectives)
    if (sum(c.calls) > 0)
      types.push_back(type_of(c, run.procs));
  return collective_traffic_at(types, run.procs);
}

std::optional<CollectiveTraffic> fit_collective_traffic(const std::vector<MeasuredRun>& runs,
                                                        std::vector<std::string>& warnings)
{
  const MeasuredRun* largest = nullptr;
  std::set<std::string> names;
  for (const MeasuredRun& r : runs) {
    if (r.procs < 2)
      continue;
    if (!r.collectives_listed)
      return std::nullopt;
    if (largest == nullptr || r.procs > largest->procs)
      largest = &r;
    for (const CollectiveRecord& c : r.collectives)
      if (sum(c.calls) > 0)
        names.insert(c.type);
  }
  if (largest == nullptr || names.empty())
    return std::nullopt;
  CollectiveTraffic table;
  for (const std::string& name : names) {
    const CollectiveRecord* at_largest = find_record(*largest, name);
    CollectiveType t = at_largest != nullptr ? type_of(*at_largest, largest->procs) : CollectiveType{name};
    t.seen_at.clear();
    std::vector<std::pair<double, double>> payloads;
    std::string differ;
    for (const MeasuredRun& r : runs) {
      if (r.procs < 2)
        continue;
      const CollectiveRecord* c = find_record(r, name);
      double calls = c != nullptr ? sum(c->calls) / r.procs : 0.0;
      if (std::fabs(calls - t.calls_per_rank) > 0.1 * t.calls_per_rank || (calls > 0 && !(t.calls_per_rank > 0)))
        differ += fmt::format("{}{:.4g} at {}", differ.empty() ? "" : ", ", calls, r.procs);
      if (!(calls > 0))
        continue;
      t.seen_at.push_back(r.procs);
      double payload = c->payload_bytes / sum(c->calls);
      if (payload > 0)
        payloads.emplace_back(r.procs, payload);
    }
    if (!differ.empty())
      warnings.push_back(fmt::format("the runs call {} different numbers of times a rank ({}; {:.4g} at {}, the "
                                     "largest run, taken)",
                                     name, differ, t.calls_per_rank, largest->procs));
    if (!(t.calls_per_rank > 0))
      continue; // the largest run never calls it
    std::sort(t.seen_at.begin(), t.seen_at.end());
    t.payload_bytes = t.exponent = 0;
    if (!payloads.empty()) {
      // c n^-k, k in [0, 2]: a fixed block (k = 0) to a fixed total cut among n^2 pairs (k = 2)
      PowerFit f = fit_power(payloads, -2, 0, 0);
      t.payload_bytes = f.c;
      t.exponent = std::max(0.0, -f.k);
    }
    table.types.push_back(std::move(t));
  }
  if (table.types.empty())
    return std::nullopt;
  return table;
}

void to_json(nlohmann::json& j, const CollectiveTraffic& t)
{
  nlohmann::json types = nlohmann::json::array();
  for (const CollectiveType& k : t.types) {
    nlohmann::json roots = nlohmann::json::array();
    for (const auto& [rank, share] : k.roots)
      roots.push_back({{"rank", rank}, {"share", share}});
    types.push_back({{"type", k.type},
                     {"calls_per_rank", k.calls_per_rank},
                     {"roots", roots},
                     {"payload_bytes", k.payload_bytes},
                     {"exponent", k.exponent},
                     {"seen_at", k.seen_at}});
  }
  j = {{"algorithms", "the replay's defaults"}, {"types", types}};
  if (t.rest_hot_receive)
    j["rest_hot_receive_share"] = {{"form", curve_form_name(t.rest_hot_receive->form)},
                                   {"a", t.rest_hot_receive->a},
                                   {"b", t.rest_hot_receive->b}};
}

void from_json(const nlohmann::json& j, CollectiveTraffic& t)
{
  t.types.clear();
  for (const auto& c : j.at("types")) {
    CollectiveType k;
    c.at("type").get_to(k.type);
    action_type_of(k.type); // a known collective
    c.at("calls_per_rank").get_to(k.calls_per_rank);
    for (const auto& r : c.at("roots"))
      k.roots.emplace_back(r.at("rank").get<int>(), r.at("share").get<double>());
    c.at("payload_bytes").get_to(k.payload_bytes);
    c.at("exponent").get_to(k.exponent);
    k.seen_at = c.value("seen_at", std::vector<int>{});
    t.types.push_back(std::move(k));
  }
  t.rest_hot_receive.reset();
  if (j.contains("rest_hot_receive_share")) {
    const auto& c = j.at("rest_hot_receive_share");
    t.rest_hot_receive =
        Curve{curve_form_from_name(c.at("form").get<std::string>()), c.at("a").get<double>(), c.at("b").get<double>()};
  }
}

} // namespace perfcast
