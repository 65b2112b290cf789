#include "sched/Jobs.hpp"

#include "core/Error.hpp"
#include "core/JsonKeys.hpp"
#include "core/NamedSpec.hpp"
#include "core/Text.hpp"
#include "sched/Swf.hpp"
#include "sched/Workload.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace perfcast::sched {
namespace {

using nlohmann::json;

double number(const json& v, const std::string& path, const std::string& where, bool positive = false)
{
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || (positive && v.get<double>() == 0))
    fail_in(path, fmt::format("{}: expected a {} number", where, positive ? "positive" : "non-negative"));
  return v.get<double>();
}

void read_resources(const json& o, JobResources& r, const std::string& path, const std::string& where)
{
  static const char* keys[] = {"instructions", "memory_mb", "read_bytes", "write_bytes", "messages", "message_bytes"};
  double* fields[] = {&r.instructions, &r.memory_mb, &r.read_bytes, &r.write_bytes, &r.messages, &r.message_bytes};
  for (int k = 0; k < 6; ++k)
    if (o.contains(keys[k])) {
      *fields[k] = number(o[keys[k]], path, fmt::format("{}.{}", where, keys[k]));
      r.given = true;
    }
}

std::vector<RigidJob> listed_jobs(const json& list, const std::string& path, const JsonLines& lines)
{
  if (!list.is_array())
    fail_in(path, "jobs: expected an array");
  static const std::vector<std::string> known = {"id", "submit_s", "procs", "run_s", "requested_s", "instructions",
                                                 "memory_mb", "read_bytes", "write_bytes", "messages",
                                                 "message_bytes"};
  std::vector<RigidJob> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& o = list[i];
    std::string w = fmt::format("jobs[{}]", i);
    if (!o.is_object())
      fail_in(path, w + ": expected an object");
    check_json_keys(o, known, w, path, lines);
    if (!o.contains("procs") || !o.contains("run_s"))
      fail_in(path, w + ": expected \"procs\" and \"run_s\"");
    RigidJob j;
    j.id = o.contains("id") ? static_cast<long long>(number(o["id"], path, w + ".id")) : static_cast<long long>(i);
    j.submit_s = o.contains("submit_s") ? number(o["submit_s"], path, w + ".submit_s") : 0.0;
    double procs = number(o["procs"], path, w + ".procs", true);
    if (procs != std::floor(procs) || procs > 1e9)
      fail_in(path, w + ".procs: expected a whole number of cores");
    j.procs = static_cast<int>(procs);
    j.run_s = number(o["run_s"], path, w + ".run_s");
    j.estimate_s = o.contains("requested_s") ? number(o["requested_s"], path, w + ".requested_s", true) : j.run_s;
    read_resources(o, j.resources, path, w);
    out.push_back(j);
  }
  return out;
}

LoadedWorkload from_swf(const SwfLog& log)
{
  LoadedWorkload w;
  w.rigid = true;
  w.kind = "swf";
  for (const SwfJob& s : log.jobs) {
    if (s.run_s < 0) {
      ++w.skipped;
      continue;
    }
    RigidJob j;
    j.id = s.id;
    j.submit_s = s.submit_s;
    j.procs = s.procs();
    j.run_s = s.run_s;
    j.estimate_s = s.requested_s > 0 ? s.requested_s : s.run_s;
    j.line = s.line;
    w.jobs.push_back(j);
  }
  return w;
}

} // namespace

LoadedWorkload parse_any_workload(const std::string& text, const std::string& path)
{
  std::string_view body = trim(text);
  if (body.empty() || body.front() != '{')
    return from_swf(parse_swf(text, path));
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) { // a syntax error, or a number out of range (1e999)
    fail_in(path, fmt::format("not valid JSON: {}", e.what()));
  }
  LoadedWorkload w;
  try {
    if (doc.is_object() && doc.contains("jobs")) {
      if (doc.value("format", "") != "perfcast-workload" || !(doc.contains("version") && doc["version"] == 1))
        fail_in(path, "expected a perfcast workload (\"format\": \"perfcast-workload\", \"version\": 1)");
      if (doc.contains("processes") || doc.contains("generate"))
        fail_in(path, "expected either \"jobs\" (rigid jobs) or processes, not both");
      const JsonLines lines(text);
      check_json_keys(doc, {"format", "version", "description", "generator", "jobs"}, "", path, lines);
      w.rigid = true;
      w.kind = "jobs";
      w.jobs = listed_jobs(doc["jobs"], path, lines);
      return w;
    }
  } catch (const json::exception& e) { // a field of the wrong JSON type where no check looked
    fail_in(path, fmt::format("unexpected JSON value: {}", e.what()));
  }
  w.kind = "processes";
  w.processes = parse_workload(text, path);
  return w;
}

LoadedWorkload load_any_workload(const std::string& path)
{
  return parse_any_workload(read_file(path, "workload file"), path);
}

void apply_sidecar(std::vector<RigidJob>& jobs, const std::string& text, const std::string& path)
{
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) { // a syntax error, or a number out of range (1e999)
    fail_in(path, fmt::format("not valid JSON: {}", e.what()));
  }
  try {
    if (!doc.is_object() || doc.value("format", "") != "perfcast-swf-sidecar" || !(doc.contains("version") && doc["version"] == 1) ||
        !doc.contains("jobs") || !doc["jobs"].is_object())
      fail_in(path, "expected a sidecar ({\"format\": \"perfcast-swf-sidecar\", \"version\": 1, \"jobs\": {...}})");
    const JsonLines lines(text);
    check_json_keys(doc, {"format", "version", "description", "generator", "jobs"}, "", path, lines);
    std::map<long long, RigidJob*> by_id;
    for (RigidJob& j : jobs)
      by_id[j.id] = &j;
    for (const auto& item : doc["jobs"].items()) {
      std::string where = "jobs." + item.key();
      char* stop = nullptr;
      long long id = std::strtoll(item.key().c_str(), &stop, 10);
      if (item.key().empty() || *stop != '\0')
        fail_in(path, fmt::format("{}: expected a job number as the key", where));
      auto it = by_id.find(id);
      if (it == by_id.end())
        fail_in(path, fmt::format("{}: no job {} in the workload (expected the log's job numbers)", where, id));
      if (!item.value().is_object())
        fail_in(path, where + ": expected an object of resource figures");
      check_json_keys(item.value(), {"instructions", "memory_mb", "read_bytes", "write_bytes", "messages",
                                     "message_bytes"},
                      where, path, lines);
      read_resources(item.value(), it->second->resources, path, where);
    }
  } catch (const json::exception& e) { // a field of the wrong JSON type where no check looked
    fail_in(path, fmt::format("unexpected JSON value: {}", e.what()));
  }
}

void check_jobs_feasible(const std::vector<ComputerSpec>& computers, const std::vector<RigidJob>& jobs,
                         const std::string& workload_path)
{
  int cores = 0;
  double largest_memory = 0;
  bool reads_ok = true, writes_ok = true;
  for (const ComputerSpec& c : computers) {
    cores += c.cores;
    largest_memory = std::max(largest_memory, c.model.main_memory_mb + c.model.virtual_memory_mb);
    reads_ok = reads_ok && c.model.disk_read_bytes_per_s > 0;
    writes_ok = writes_ok && c.model.disk_write_bytes_per_s > 0;
  }
  for (const RigidJob& j : jobs) {
    auto fail = [&](const std::string& what) {
      if (j.line > 0)
        fail_at(workload_path, j.line, what);
      fail_in(workload_path, what);
    };
    if (j.procs > cores)
      fail(fmt::format("job {} asks for {} processors, more than the platform's {} cores", j.id, j.procs, cores));
    if (j.resources.memory_mb > largest_memory)
      fail(fmt::format("job {} needs {} MB a process, more than any computer's main and virtual memory ({} MB)",
                       j.id, j.resources.memory_mb, largest_memory));
    if (j.resources.read_bytes > 0 && !reads_ok)
      fail(fmt::format("job {} reads from disk, and a computer of the platform has no disk_read figure", j.id));
    if (j.resources.write_bytes > 0 && !writes_ok)
      fail(fmt::format("job {} writes to disk, and a computer of the platform has no disk_write figure", j.id));
  }
}

} // namespace perfcast::sched
