#include "sched/Workload.hpp"

#include "core/Distribution.hpp"
#include "core/Error.hpp"
#include "core/JsonKeys.hpp"
#include "core/Text.hpp"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace perfcast::sched {
namespace {

using nlohmann::json;

StageKind stage_kind(const std::string& name, const std::string& path, const std::string& where)
{
  if (name == "cpu")
    return StageKind::Cpu;
  if (name == "read")
    return StageKind::DiskRead;
  if (name == "write")
    return StageKind::DiskWrite;
  if (name == "message")
    return StageKind::Message;
  if (name == "sleep")
    return StageKind::Sleep;
  fail_in(path, fmt::format("{}: unknown stage '{}' (expected cpu, read, write, message or sleep)", where, name));
}

double non_negative(const json& v, const std::string& path, const std::string& where)
{
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    fail_in(path, fmt::format("{}: expected a non-negative number", where));
  return v.get<double>();
}

std::vector<ProcessSpec> listed(const json& list, const std::string& path, const JsonLines& lines)
{
  if (!list.is_array())
    fail_in(path, "processes: expected an array");
  std::vector<ProcessSpec> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& p = list[i];
    std::string w = fmt::format("processes[{}]", i);
    if (!p.is_object())
      fail_in(path, w + ": expected an object");
    check_json_keys(p, {"id", "arrival_s", "memory_mb", "stages"}, w, path, lines);
    ProcessSpec spec;
    spec.id = p.contains("id") ? static_cast<long long>(non_negative(p["id"], path, w + ".id"))
                               : static_cast<long long>(i);
    spec.arrival_s = p.contains("arrival_s") ? non_negative(p["arrival_s"], path, w + ".arrival_s") : 0.0;
    spec.memory_mb = p.contains("memory_mb") ? non_negative(p["memory_mb"], path, w + ".memory_mb") : 0.0;
    if (!p.contains("stages") || !p["stages"].is_array())
      fail_in(path, w + ".stages: expected an array of [kind, amount] pairs");
    for (std::size_t k = 0; k < p["stages"].size(); ++k) {
      const json& st = p["stages"][k];
      std::string sw = fmt::format("{}.stages[{}]", w, k);
      if (!st.is_array() || st.size() < 2 || st.size() > 3 || !st[0].is_string())
        fail_in(path, sw + ": expected [kind, amount] or [\"read\"|\"write\", bytes, request bytes], such as "
                           "[\"cpu\", 1e9]");
      Stage stage{stage_kind(st[0].get<std::string>(), path, sw), non_negative(st[1], path, sw + "[1]")};
      if (st.size() == 3) {
        if (stage.kind != StageKind::DiskRead && stage.kind != StageKind::DiskWrite)
          fail_in(path, sw + ": expected a request size only on a read or write stage");
        stage.request = non_negative(st[2], path, sw + "[2]");
        if (!(stage.request > 0))
          fail_in(path, sw + "[2]: expected a request size above 0 bytes");
      }
      spec.stages.push_back(stage);
    }
    out.push_back(std::move(spec));
  }
  return out;
}

std::vector<ProcessSpec> generated(const json& g, const std::string& path, const JsonLines& lines)
{
  if (!g.is_object())
    fail_in(path, "generate: expected an object");
  check_json_keys(g, {"count", "seed", "arrival", "cpu", "memory_mb", "read_bytes", "write_bytes", "messages",
                      "message_bytes"},
                  "generate", path, lines);
  auto dist = [&](const char* key, const char* fallback) {
    std::string spec = fallback;
    if (g.contains(key)) {
      if (!g[key].is_string())
        fail_in(path, fmt::format("generate.{}: expected a distribution such as \"exp:mean=2\"", key));
      spec = g[key].get<std::string>();
    }
    try {
      return Distribution::parse(spec);
    } catch (const Error& e) {
      fail_in(path, fmt::format("generate.{}: {}", key, e.what()));
    }
  };
  if (!g.contains("count") || !g["count"].is_number_integer() || g["count"].get<long long>() < 1 ||
      g["count"].get<long long>() > 100000000)
    fail_in(path, "generate.count: expected a whole number of processes from 1 to 100000000");
  long long count = g["count"].get<long long>();
  std::uint64_t seed = 1;
  if (g.contains("seed")) {
    // compared as a JSON number first: converting one beyond the type's range is undefined
    if (!g["seed"].is_number_unsigned() && !(g["seed"].is_number_integer() && g["seed"].get<long long>() >= 0))
      fail_in(path, "generate.seed: expected a whole number from 0 to 2^64 - 1");
    seed = g["seed"].get<std::uint64_t>();
  }
  Distribution arrival = dist("arrival", "exp:mean=1"), cpu = dist("cpu", "exp:mean=1e9"),
               memory = dist("memory_mb", "fixed:value=0"), reads = dist("read_bytes", "fixed:value=0"),
               writes = dist("write_bytes", "fixed:value=0"), messages = dist("messages", "fixed:value=0"),
               message_bytes = dist("message_bytes", "fixed:value=32");
  Rng rng(seed);
  std::vector<ProcessSpec> out;
  out.reserve(static_cast<std::size_t>(count));
  double t = 0;
  for (long long i = 0; i < count; ++i) {
    t += arrival.sample(rng);
    ProcessSpec p{i, t, std::max(0.0, memory.sample(rng)), {}};
    double r = reads.sample(rng), c = cpu.sample(rng), w = writes.sample(rng);
    long long m = std::llround(std::max(0.0, messages.sample(rng)));
    if (r > 0)
      p.stages.push_back({StageKind::DiskRead, r});
    p.stages.push_back({StageKind::Cpu, std::max(0.0, c)});
    if (w > 0)
      p.stages.push_back({StageKind::DiskWrite, w});
    for (long long k = 0; k < m; ++k)
      p.stages.push_back({StageKind::Message, std::max(0.0, message_bytes.sample(rng))});
    out.push_back(std::move(p));
  }
  return out;
}

} // namespace

std::vector<ProcessSpec> parse_workload(const std::string& text, const std::string& path)
{
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) { // a syntax error, or a number out of range (1e999)
    fail_in(path, fmt::format("not valid JSON: {}", e.what()));
  }
  try {
    if (!doc.is_object() || doc.value("format", "") != "perfcast-workload" || !(doc.contains("version") && doc["version"] == 1))
      fail_in(path, "expected a perfcast workload (\"format\": \"perfcast-workload\", \"version\": 1)");
    const JsonLines lines(text);
    check_json_keys(doc, {"format", "version", "description", "generator", "processes", "generate"}, "", path, lines);
    if (doc.contains("processes") == doc.contains("generate"))
      fail_in(path, "expected either \"processes\" or \"generate\"");
    return doc.contains("processes") ? listed(doc["processes"], path, lines) : generated(doc["generate"], path, lines);
  } catch (const json::exception& e) { // a field of the wrong JSON type where no check looked
    fail_in(path, fmt::format("unexpected JSON value: {}", e.what()));
  }
}

std::vector<ProcessSpec> load_workload(const std::string& path)
{
  return parse_workload(read_file(path, "workload file"), path);
}

namespace {

/// Bandwidth of the link a host's messages leave by: the first link of its
/// route to the next host (a cluster's private link), or of its loopback
/// route when it is alone; 0 when it has no route.
double interface_bandwidth(const Platform& platform, int host)
{
  int n = static_cast<int>(platform.hosts().size());
  int other = n > 1 ? (host + 1) % n : host;
  if (!platform.has_route(host, other))
    return 0;
  Route r = platform.route(host, other);
  return r.links.empty() ? 0 : platform.links()[static_cast<std::size_t>(r.links.front())].bandwidth_Bps;
}

} // namespace

std::vector<ComputerSpec> computers_from_platform(const Platform& platform)
{
  std::vector<ComputerSpec> out;
  for (const Host& h : platform.hosts()) {
    ComputerSpec c;
    c.network_bytes_per_s = interface_bandwidth(platform, static_cast<int>(out.size()));
    c.model.name = h.name;
    c.model.instructions_per_s = h.speed_flops;
    c.model.main_memory_mb = h.memory_bytes / 1e6;
    c.model.virtual_memory_mb = h.virtual_memory_bytes / 1e6;
    c.model.disk_read_bytes_per_s = h.disk_read_Bps;
    c.model.disk_write_bytes_per_s = h.disk_write_Bps;
    c.model.disk_cpu_s_per_byte = h.disk_cpu_s_per_byte;
    c.model.disk_write_busy_bytes_per_s = h.disk_write_busy_Bps;
    c.model.message_overhead_s = h.message_overhead_s;
    c.model.message_latency_s = h.message_latency_s;
    c.model.slowdown = {h.memory_slowdown.linear_slope, h.memory_slowdown.linear_intercept,
                        h.memory_slowdown.exp_scale, h.memory_slowdown.exp_rate};
    c.cores = h.cores;
    out.push_back(c);
  }
  return out;
}

void check_feasible(const std::vector<ComputerSpec>& computers, const std::vector<ProcessSpec>& processes,
                    const std::string& workload_path)
{
  double largest_memory = 0;
  for (const ComputerSpec& c : computers)
    largest_memory = std::max(largest_memory, c.model.main_memory_mb + c.model.virtual_memory_mb);
  bool reads = false, writes = false;
  for (const ProcessSpec& p : processes) {
    if (p.memory_mb > 0 && p.memory_mb > largest_memory)
      fail_in(workload_path, fmt::format("process {} needs {} MB, more than any computer's main and virtual "
                                         "memory ({} MB)",
                                         p.id, p.memory_mb, largest_memory));
    for (const Stage& s : p.stages) {
      reads = reads || (s.kind == StageKind::DiskRead && s.amount > 0);
      writes = writes || (s.kind == StageKind::DiskWrite && s.amount > 0);
    }
  }
  for (const ComputerSpec& c : computers) {
    if (reads && !(c.model.disk_read_bytes_per_s > 0))
      throw Error(fmt::format("host '{}' has no disk_read figure (expected one in the platform: the workload reads)",
                              c.model.name));
    if (writes && !(c.model.disk_write_bytes_per_s > 0))
      throw Error(fmt::format("host '{}' has no disk_write figure (expected one in the platform: the workload "
                              "writes)",
                              c.model.name));
  }
}

} // namespace perfcast::sched
