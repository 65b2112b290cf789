#include "probe/ProbeReport.hpp"

#include "core/Version.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace perfcast::probe {
namespace {

using nlohmann::json;

/// The platform's o: the measured one, but never more than half the measured one-way
/// time, so that 2 o + l (UniMPP eq. 7) is the one-way time the probe saw.
double platform_overhead(const NetFigure& n) { return std::min(n.overhead_s.mean, n.one_way_s.mean / 2); }

double disk_read(const DiskFigure& d) { return (d.has_direct ? d.read_direct : d.read_buffered).mean; }
double disk_write(const DiskFigure& d) { return (d.has_direct ? d.write_direct : d.write_buffered).mean; }

std::string line(const std::string& name, const Estimate& e, double scale, const std::string& unit)
{
  return fmt::format("{:<24} {:>12.5g} {:<8} sd {:<10.3g} n {:<4} 95% [{:.5g}, {:.5g}]{}\n", name, e.mean / scale,
                     unit, e.sd / scale, e.n, e.ci_low / scale, e.ci_high / scale,
                     e.converged ? "" : "  (maximum count reached before the wanted width)");
}

} // namespace

json estimate_json(const Estimate& e)
{
  json j = {{"mean", e.mean}, {"sd", e.sd}, {"n", e.n}, {"ci95", {e.ci_low, e.ci_high}}, {"converged", e.converged}};
  if (!e.samples.empty()) // in the order taken: bench/probe_repeat.sh looks for drift within the run
    j["samples"] = e.samples;
  return j;
}

json figures_json(const ProbeResult& r)
{
  json j = {{"host", r.machine.host},
            {"cores", r.machine.cores},
            {"cpu_model", r.machine.cpu_model},
            {"stopping_rule",
             {{"relative_error", r.rule.relative_error},
              {"confidence", 0.95},
              {"min_samples", r.rule.min_samples},
              {"max_samples", r.rule.max_samples},
              {"sample_size", "n = (z s / (e mean))^2, z = 1.96"},
              {"interleaved", "one sample of every figure per round, rounds until every figure's rule is met and "
                              "min_seconds have passed"},
              {"min_seconds", r.min_seconds},
              {"seconds", r.seconds}}},
            {"cpu", {{"rate_per_s", estimate_json(r.cpu.rate)}, {"unit", r.cpu.unit}, {"how", r.cpu.how}}},
            {"memory_info",
             {{"main_bytes", r.memory_info.total_bytes},
              {"available_bytes", r.memory_info.available_bytes},
              {"swap_bytes", r.memory_info.swap_total_bytes}}}};
  if (r.memory) {
    const MemoryFigure& m = *r.memory;
    json points = json::array();
    for (const MemoryPoint& p : m.points)
      points.push_back({{"held_mb", p.held_mb}, {"task_s", estimate_json(p.task_s)}, {"alpha", p.alpha}});
    j["memory_slowdown"] = {{"probed_range_mb", {0, m.probed_max_bytes / 1e6}},
                            {"clock", m.clock},
                            {"points", points},
                            {"note", m.note}};
    if (r.page_reported_bytes)
      j["memory_slowdown"]["page_reporting"] = {{"reported_bytes_during_probe", *r.page_reported_bytes},
                                                {"note", page_reporting_note(*r.page_reported_bytes)}};
    if (m.has_linear)
      j["memory_slowdown"]["linear"] = {{"slope_per_mb", m.linear.slope},
                                        {"intercept", m.linear.intercept},
                                        {"r2", m.linear.r2}};
    if (m.has_exponential)
      j["memory_slowdown"]["exponential"] = {
          {"scale", m.exponential.scale}, {"rate_per_mb", m.exponential.rate}, {"r2", m.exponential.r2}};
  }
  if (r.disk) {
    const DiskFigure& d = *r.disk;
    j["disk"] = {{"dir", r.disk_dir},
                 {"file_bytes", r.disk_file_bytes},
                 {"write_buffered_Bps", estimate_json(d.write_buffered)},
                 {"read_buffered_Bps", estimate_json(d.read_buffered)},
                 {"platform_figures", d.has_direct ? "direct (O_DIRECT)" : "buffered"}};
    if (d.has_direct) {
      j["disk"]["write_direct_Bps"] = estimate_json(d.write_direct);
      j["disk"]["read_direct_Bps"] = estimate_json(d.read_direct);
    }
    if (d.cores_busy > 0) {
      j["disk"]["cpu_s_per_byte"] = {{"estimate", estimate_json(d.cpu_per_byte)},
                                     {"cores_busy", d.cores_busy},
                                     {"how", "every core runs the probe's mix alone (0.25 s), beside an O_DIRECT "
                                             "write of the file, and alone again: the cores lost beside the write "
                                             "times its duration over its bytes, in wall time (a virtual machine's "
                                             "host taking its time shows as steal)"}};
      j["disk"]["write_direct_busy_Bps"] = {{"estimate", estimate_json(d.write_direct_busy)},
                                            {"cores_busy", d.cores_busy},
                                            {"how", "the O_DIRECT write's own throughput in the passes above, "
                                                    "beside every core running the mix"}};
    }
    if (!d.note.empty())
      j["disk"]["note"] = d.note;
  }
  if (r.net) {
    const NetFigure& n = *r.net;
    j["messages"] = {{"between", n.between},
                     {"message_bytes", n.message_bytes},
                     {"overhead_s", estimate_json(n.overhead_s)},
                     {"one_way_s", estimate_json(n.one_way_s)},
                     {"latency_s", n.latency_s},
                     {"platform_overhead_s", platform_overhead(n)}};
  }
  return j;
}

json probe_platform(const ProbeResult& r)
{
  json node = {{"names", {r.machine.host}},
               {"speed", r.cpu.rate.mean},
               {"cores", r.machine.cores},
               {"memory", r.memory_info.total_bytes},
               {"virtual_memory", r.memory_info.swap_total_bytes}};
  if (r.memory) {
    json slowdown = json::object();
    if (r.memory->has_linear)
      slowdown["linear"] = {r.memory->linear.slope, r.memory->linear.intercept};
    if (r.memory->has_exponential)
      slowdown["exponential"] = {r.memory->exponential.scale, r.memory->exponential.rate};
    node["memory_slowdown"] = slowdown;
  }
  if (r.disk) {
    node["disk_read"] = disk_read(*r.disk);
    node["disk_write"] = disk_write(*r.disk);
    if (r.disk->cores_busy > 0) { // the CPU a byte of disk I/O takes from busy cores; noise below 0 is none
      node["disk_cpu_per_MB"] = std::max(0.0, r.disk->cpu_per_byte.mean) * 1e6;
      node["disk_write_busy"] = r.disk->write_direct_busy.mean;
    }
  }
  json loopback = {{"bandwidth", r.loopback_bytes_per_s}, {"latency", "1us"}};
  if (r.net) {
    node["message_overhead"] = platform_overhead(*r.net);
    node["message_latency"] = r.net->latency_s;
    loopback["latency"] = r.net->one_way_s.mean;
  }
  return {{"format", "perfcast-platform"},
          {"version", 1},
          {"generator", kPerfcastGenerator},
          {"description",
           {{"what", "the machine perfcast probe ran on: figures measured now (perfcast probe)"},
            {"speed_unit", r.cpu.unit + " per second"},
            {"memory_slowdown_unit", "alpha against megabytes (1e6 bytes) in use"},
            {"figures", figures_json(r)}}},
          {"clusters",
           {{{"name", "this-machine"},
             {"bandwidth", "10Gbps"},
             {"latency", "50us"},
             {"loopback", loopback},
             {"nodes", {node}}}}}};
}

std::string page_reporting_note(double reported_bytes)
{
  return fmt::format("this machine hands the memory it frees back to its host (free page reporting): {:.0f} MB during "
                     "the probe. Pages touched again wait for the host to populate them, so the levels' times "
                     "depend on the host's state as well as this machine's, and may differ between runs",
                     reported_bytes / 1e6);
}

std::string figures_text(const ProbeResult& r)
{
  std::string out = fmt::format("{} ({} cores), 95% intervals within {:.3g}% of the mean, {} to {} samples, one "
                                "of every figure per round over {:.1f} s (at least {:.0f} s)\n",
                                r.machine.host, r.machine.cores, 100 * r.rule.relative_error, r.rule.min_samples,
                                r.rule.max_samples, r.seconds, r.min_seconds);
  out += line("cpu rate", r.cpu.rate, 1e9, "G" + r.cpu.unit + "/s");
  out += "  " + r.cpu.how + "\n";
  if (r.memory) {
    const MemoryFigure& m = *r.memory;
    out += fmt::format("memory slowdown, probed 0 to {:.0f} MB (main memory {:.0f} MB, swap {:.0f} MB), reference "
                       "task timed in {} time\n",
                       m.probed_max_bytes / 1e6, r.memory_info.total_bytes / 1e6, r.memory_info.swap_total_bytes / 1e6,
                       m.clock == "wall" ? "elapsed" : "CPU");
    for (const MemoryPoint& p : m.points)
      out += line(fmt::format("  {:.0f} MB held", p.held_mb), p.task_s, 1e-3, "ms") +
             fmt::format("  {:>24} alpha {:+.4f}\n", "", p.alpha);
    if (m.has_linear)
      out += fmt::format("  linear: alpha = {:.4g} x + {:.4g} (x in MB), R^2 {:.4f}\n", m.linear.slope,
                         m.linear.intercept, m.linear.r2);
    if (m.has_exponential)
      out += fmt::format("  exponential: alpha = {:.4g} exp({:.4g} x), R^2 {:.4f}\n", m.exponential.scale,
                         m.exponential.rate, m.exponential.r2);
    if (!m.note.empty())
      out += "  " + m.note + "\n";
    if (r.page_reported_bytes)
      out += "  " + page_reporting_note(*r.page_reported_bytes) + "\n";
  }
  if (r.disk) {
    const DiskFigure& d = *r.disk;
    out += fmt::format("disk, a {:.0f} MiB file in {}\n", r.disk_file_bytes / (1 << 20), r.disk_dir);
    out += line("  write buffered+sync", d.write_buffered, 1e6, "MB/s");
    out += line("  read buffered (cold)", d.read_buffered, 1e6, "MB/s");
    if (d.has_direct) {
      out += line("  write O_DIRECT", d.write_direct, 1e6, "MB/s");
      out += line("  read O_DIRECT", d.read_direct, 1e6, "MB/s");
    }
    if (d.cores_busy > 0) {
      out += line(fmt::format("  CPU per MB written ({} cores busy)", d.cores_busy), d.cpu_per_byte, 1e-9, "ms/MB");
      out += line(fmt::format("  write O_DIRECT ({} cores busy)", d.cores_busy), d.write_direct_busy, 1e6, "MB/s");
    }
    out += fmt::format("  the platform's disk_read/disk_write are the {} figures\n",
                       d.has_direct ? "O_DIRECT" : "buffered");
    if (!d.note.empty())
      out += "  " + d.note + "\n";
  }
  if (r.net) {
    const NetFigure& n = *r.net;
    out += fmt::format("messages of {} bytes, {}\n", n.message_bytes, n.between);
    out += line("  overhead o", n.overhead_s, 1e-6, "us");
    out += line("  one way 2o + l", n.one_way_s, 1e-6, "us");
    out += fmt::format("  latency l = one way - 2o = {:.3f} us\n", n.latency_s * 1e6);
    if (platform_overhead(n) < n.overhead_s.mean)
      out += fmt::format("  the calls took more than half the one-way time (a loaded machine?): the platform's o is "
                         "one way / 2 = {:.3f} us, its l 0\n",
                         platform_overhead(n) * 1e6);
  }
  return out;
}

} // namespace perfcast::probe
