#include "qn/MeasuredRun.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"
#include "core/Units.hpp"
#include "trace/ActionKeywords.hpp"
#include "trace/TraceDirectory.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace perfcast {

namespace {

using nlohmann::json;

std::vector<std::string> split(const std::string& s, char sep)
{
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    out.push_back(cur);
  if (!s.empty() && s.back() == sep)
    out.emplace_back();
  return out;
}


void check_run(const MeasuredRun& r, const std::string& where)
{
  if (r.procs < 1)
    fail_in(where, "procs must be a positive integer");
  if (!(r.time_s > 0))
    fail_in(where, "time_s must be positive");
  if (!(r.mpi_s >= 0) || r.mpi_s > r.time_s * 1.000001)
    fail_in(where, fmt::format("mpi_s must be between 0 and time_s ({}), got {}", r.time_s, r.mpi_s));
  // a one-process run sends nothing: it measures the computation alone
  if (!(r.sends_per_process >= 0))
    fail_in(where, "sends_per_process must be non-negative");
  if (!(r.message_bytes >= 0))
    fail_in(where, "message_bytes must be non-negative");
  int placed = 0;
  for (const auto& [host, count] : r.placement) {
    if (count < 1)
      fail_in(where, fmt::format("placement: host '{}' has {} processes (expected at least 1)", host, count));
    placed += count;
  }
  if (placed != r.procs)
    fail_in(where, fmt::format("placement puts {} processes but procs is {}", placed, r.procs));
}

std::map<std::string, int> parse_placement(const std::string& text, const std::string& where)
{
  std::map<std::string, int> p;
  for (const std::string& part : split(text, ';')) {
    std::string item(trim(part));
    if (item.empty())
      continue;
    auto colon = item.rfind(':');
    auto count = colon == std::string::npos ? std::nullopt : parse_number(item.substr(colon + 1));
    if (!count || *count < 1 || *count != static_cast<int>(*count))
      fail_in(where, fmt::format("placement entry '{}': expected HOST:COUNT", item));
    p[item.substr(0, colon)] += static_cast<int>(*count);
  }
  return p;
}

std::vector<MeasuredRun> load_csv(const std::string& text, const std::string& path)
{
  std::istringstream in(text);
  std::string line;
  std::size_t lineno = 0;
  std::vector<std::string> header;
  std::vector<MeasuredRun> runs;
  const std::vector<std::string> fields{"procs", "time_s", "mpi_s", "sends_per_process", "message_bytes", "placement"};
  while (std::getline(in, line)) {
    ++lineno;
    std::string t(trim(line));
    if (t.empty() || t[0] == '#')
      continue;
    auto cells = split(t, ',');
    for (auto& c : cells)
      c = std::string(trim(c));
    if (header.empty()) {
      header = cells;
      for (const auto& f : fields)
        if (std::find(header.begin(), header.end(), f) == header.end())
          fail_at(path, lineno, fmt::format("CSV header lacks column '{}' (expected {})", f,
                                            "procs,time_s,mpi_s,sends_per_process,message_bytes,placement"));
      continue;
    }
    if (cells.size() != header.size())
      fail_at(path, lineno, fmt::format("expected {} columns, got {}", header.size(), cells.size()));
    std::string where = fmt::format("{}:{}", path, lineno);
    MeasuredRun r;
    r.source = where;
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::string& col = header[i];
      if (col == "placement") {
        r.placement = parse_placement(cells[i], where);
        continue;
      }
      if (std::find(fields.begin(), fields.end(), col) == fields.end())
        continue; // extra columns are kept out of the model
      auto v = parse_number(cells[i]);
      if (!v)
        fail_at(path, lineno, fmt::format("column '{}': expected a number, got '{}'", col, cells[i]));
      if (col == "procs")
        r.procs = static_cast<int>(*v);
      else if (col == "time_s")
        r.time_s = *v;
      else if (col == "mpi_s")
        r.mpi_s = *v;
      else if (col == "sends_per_process")
        r.sends_per_process = *v;
      else if (col == "message_bytes")
        r.message_bytes = *v;
    }
    check_run(r, where);
    runs.push_back(std::move(r));
  }
  if (runs.empty())
    fail_in(path, "no run in the file");
  return runs;
}

double number(const json& o, const char* key, const std::string& where)
{
  if (!o.contains(key))
    fail_in(where, fmt::format("missing field '{}'", key));
  if (!o[key].is_number())
    fail_in(where, fmt::format("field '{}' must be a number", key));
  return o[key].get<double>();
}

// A partner's messages by size class: [min_bytes, messages, bytes] per class, as `perfcast replay --json` writes them.
std::vector<SizeClass> partner_sizes(const json& list, const std::string& where)
{
  std::vector<SizeClass> sizes;
  if (!list.is_array())
    fail_in(where, "partners: 'sizes' must be a list of [min_bytes, messages, bytes]");
  for (const json& c : list) {
    if (!c.is_array() || c.size() != 3 || !c[0].is_number() || !c[1].is_number() || !c[2].is_number())
      fail_in(where, "partners: expected each of 'sizes' as [min_bytes, messages, bytes]");
    double low = c[0].get<double>(), messages = c[1].get<double>(), bytes = c[2].get<double>();
    if (!(low >= 0) || !(messages >= 0) || !(bytes >= 0))
      fail_in(where, "partners: 'sizes' holds a negative size or count");
    sizes.push_back({low, low > 0 ? 2 * low - 1 : 0, messages, bytes});
  }
  return sizes;
}

// The output of `perfcast replay --json`: one run.
MeasuredRun from_replay(const json& doc, const std::string& path)
{
  MeasuredRun r;
  r.source = path;
  r.time_s = number(doc, "makespan_s", path);
  if (doc.contains("network") && doc["network"].is_string())
    r.network = doc["network"].get<std::string>();
  const json& ranks = doc.at("ranks");
  bool computes = std::all_of(ranks.begin(), ranks.end(), [](const json& rank) { return rank.contains("compute_s"); });
  double mpi = 0, wait = 0, sent = 0, bytes = 0, received = 0, busiest = 0;
  double busiest_sent = 0, busiest_sent_bytes = 0; // what the busiest receiver sends
  for (const json& rank : ranks) {
    r.placement[rank.at("host").get<std::string>()] += 1;
    if (computes)
      r.rank_compute_s.emplace_back(rank.at("host").get<std::string>(), number(rank, "compute_s", path));
    wait += number(rank, "wait_s", path);
    mpi += number(rank, "communicate_s", path) + number(rank, "wait_s", path);
    sent += number(rank, "messages_sent", path);
    bytes += number(rank, "bytes_sent", path);
    // a reduce's root receives from every rank: the model needs that share
    if (rank.contains("bytes_received")) {
      double b = number(rank, "bytes_received", path);
      received += b;
      r.rank_bytes_received.push_back(b);
      if (b > busiest) {
        busiest = b;
        busiest_sent = number(rank, "messages_sent", path);
        busiest_sent_bytes = number(rank, "bytes_sent", path);
      }
    }
  }
  r.procs = static_cast<int>(ranks.size());
  if (r.procs == 0)
    fail_in(path, "the replay has no rank");
  // who sends to whom, and at what sizes (as replays list them)
  if (std::all_of(ranks.begin(), ranks.end(), [](const json& rank) { return rank.contains("partners"); })) {
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      std::string where = fmt::format("{}: ranks[{}]", path, i);
      std::vector<PartnerTraffic> list;
      for (const json& p : ranks[i].at("partners")) {
        PartnerTraffic t{static_cast<int>(number(p, "rank", where)), number(p, "messages", where),
                         number(p, "bytes", where), {}};
        if (t.to < 0 || t.to >= r.procs || !(t.messages >= 0) || !(t.bytes >= 0))
          fail_in(where, fmt::format("partners: expected a rank below {} and non-negative counts", r.procs));
        if (p.contains("sizes"))
          t.sizes = partner_sizes(p.at("sizes"), where);
        list.push_back(t);
      }
      r.partners.push_back(std::move(list));
    }
  }
  // the collectives' calls per type (as replays list them)
  if (std::all_of(ranks.begin(), ranks.end(), [](const json& rank) { return rank.contains("collective_calls"); })) {
    r.collectives_listed = true;
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      std::string where = fmt::format("{}: ranks[{}]: collective_calls", path, i);
      const json& list = ranks[i].at("collective_calls");
      if (!list.is_array())
        fail_in(where, "expected an array of {type, calls, root_calls, payload_bytes}");
      for (const json& c : list) {
        if (!c.is_object() || !c.contains("type") || !c["type"].is_string())
          fail_in(where, "expected each entry to name its collective as \"type\" (such as \"allreduce\")");
        std::string type = c["type"].get<std::string>();
        const Keyword* k = find_keyword(type);
        if (k == nullptr || k->nonblocking || !is_collective(k->type))
          fail_in(where, fmt::format("'{}' is no collective (expected a blocking collective's keyword, such as "
                                     "allreduce)",
                                     type));
        double calls = number(c, "calls", where), roots = number(c, "root_calls", where),
               payload = number(c, "payload_bytes", where);
        if (!(calls >= 0) || !(roots >= 0) || roots > calls || !(payload >= 0))
          fail_in(where, fmt::format("{}: expected calls >= 0, root_calls between 0 and calls and payload_bytes >= 0",
                                     type));
        auto [it, added] = index.emplace(type, r.collectives.size());
        if (added)
          r.collectives.push_back({type, std::vector<double>(ranks.size(), 0.0), std::vector<double>(ranks.size(), 0.0), 0});
        CollectiveRecord& record = r.collectives[it->second];
        record.calls[i] += calls;
        record.root_calls[i] += roots;
        record.payload_bytes += payload;
      }
    }
  }
  if (doc.contains("message_sizes"))
    for (const json& c : doc.at("message_sizes")) {
      SizeClass k{number(c, "min_bytes", path), number(c, "max_bytes", path), number(c, "messages", path),
                  number(c, "bytes", path)};
      if (!(k.messages >= 0) || !(k.bytes >= 0) || k.max_bytes < k.min_bytes)
        fail_in(path, "message_sizes: expected min_bytes <= max_bytes and non-negative counts");
      r.message_sizes.push_back(k);
    }
  r.mpi_s = mpi / r.procs;
  r.wait_s = wait / r.procs;
  r.sends_per_process = sent / r.procs;
  r.message_bytes = sent > 0 ? bytes / sent : 0;
  if (received > 0) {
    r.hot_receive_share = busiest / received;
    // a reduce's root receives nearly all and sends nearly nothing
    if (sent > 0 && bytes > 0) {
      r.hot_send_share = busiest_sent_bytes / bytes;
      r.hot_send_message_share = busiest_sent / sent;
    }
  }
  check_run(r, path);
  return r;
}

std::vector<MeasuredRun> load_json(const std::string& text, const std::string& path)
{
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    fail_in(path, fmt::format("malformed JSON: {}", e.what()));
  }
  try {
    if (doc.is_object() && doc.contains("makespan_s"))
      return {from_replay(doc, path)};
    if (!doc.is_object() || doc.value("format", "") != "perfcast-runs")
      fail_in(path, "expected perfcast runs JSON (\"format\": \"perfcast-runs\") or `perfcast replay --json` output");
    std::vector<MeasuredRun> runs;
    const json& list = doc.at("runs");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& o = list[i];
      std::string where = fmt::format("{}: runs[{}]", path, i);
      MeasuredRun r;
      r.source = where;
      r.procs = static_cast<int>(number(o, "procs", where));
      r.time_s = number(o, "time_s", where);
      r.mpi_s = number(o, "mpi_s", where);
      r.sends_per_process = number(o, "sends_per_process", where);
      r.message_bytes = number(o, "message_bytes", where);
      if (!o.contains("placement") || !o["placement"].is_object())
        fail_in(where, "missing field 'placement' (an object host -> processes)");
      for (const auto& [host, count] : o["placement"].items())
        r.placement[host] = count.get<int>();
      check_run(r, where);
      runs.push_back(std::move(r));
    }
    if (runs.empty())
      fail_in(path, "no run in the file");
    return runs;
  } catch (const json::exception& e) {
    fail_in(path, fmt::format("unexpected JSON value: {}", e.what()));
  }
}

} // namespace

std::vector<MeasuredRun> load_runs(const std::string& given)
{
  std::string path = run_file_for(given);
  std::string text = read_file(path, "run file");
  auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{')
    return load_json(text, path);
  return load_csv(text, path);
}

void rename_hosts(std::vector<MeasuredRun>& runs, const std::map<std::string, std::string>& renames)
{
  for (MeasuredRun& r : runs) {
    std::map<std::string, int> placement;
    for (const auto& [host, count] : r.placement) {
      auto it = renames.find(host);
      placement[it == renames.end() ? host : it->second] += count;
    }
    r.placement = std::move(placement);
    for (auto& [host, seconds] : r.rank_compute_s) {
      auto it = renames.find(host);
      if (it != renames.end())
        host = it->second;
    }
  }
}

std::map<std::string, std::string> parse_host_map(const std::vector<std::string>& specs)
{
  std::map<std::string, std::string> renames;
  for (const std::string& spec : specs) {
    std::size_t start = 0;
    while (start <= spec.size()) {
      std::size_t end = spec.find(',', start);
      std::string item = spec.substr(start, end == std::string::npos ? std::string::npos : end - start);
      auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        throw Error(fmt::format("--host-map '{}': expected TRACED=PLATFORM_HOST[,...], such as vm=e5620-0", spec));
      renames[item.substr(0, eq)] = item.substr(eq + 1);
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
  }
  return renames;
}

MeasuredRun run_from_replay_json(const json& doc, const std::string& source) { return from_replay(doc, source); }

} // namespace perfcast
