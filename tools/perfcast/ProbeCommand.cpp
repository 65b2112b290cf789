// perfcast probe: measure this machine (processing rate, memory slowdown, disk,
// messages) and write it as a platform for perfcast schedule and replay.
#include "Command.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "core/Units.hpp"
#include "platform/ThisMachine.hpp"
#include "probe/CpuRate.hpp"
#include "probe/ProbeReport.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace perfcast::cli {
namespace {

struct ProbeArgs {
  std::string output, dir = ".", memory_max, disk_size = "64MiB", net_peer, memory_clock = "cpu";
  std::vector<std::string> skip;
  double relative_error = 0.02, min_seconds = 30;
  long min_samples = 5, max_samples = 50;
  int memory_levels = 8, net_serve = 0, message_bytes = 32, cpu_cores = 0;
  bool json = false, force = false, allow_swap = false;
};

double size_option(const std::string& text, const char* flag, double low, double high)
{
  auto v = parse_bytes(text);
  if (!v || *v < low || *v > high)
    throw Error(fmt::format("{} '{}': expected a size from {:.0f} MiB to {:.0f} MiB, such as \"256MiB\"", flag, text,
                            low / (1 << 20), high / (1 << 20)));
  return *v;
}

void check(const ProbeArgs& a)
{
  if (!(a.relative_error > 0 && a.relative_error < 1))
    throw Error(fmt::format("--rel-error {}: expected a fraction of the mean between 0 and 1, such as 0.02",
                            a.relative_error));
  if (a.min_samples < 2 || a.max_samples < a.min_samples || a.max_samples > 100000)
    throw Error(fmt::format("--min-samples {} --max-samples {}: expected 2 <= min <= max <= 100000", a.min_samples,
                            a.max_samples));
  if (!(a.min_seconds >= 0 && a.min_seconds <= 3600))
    throw Error(fmt::format("--min-seconds {}: expected 0 to 3600", a.min_seconds));
  if (a.cpu_cores < 0 || a.cpu_cores > 4096)
    throw Error(fmt::format("--cpu-cores {}: expected 1 to 4096, or 0 for every core", a.cpu_cores));
  if (a.memory_levels < 2 || a.memory_levels > 64)
    throw Error(fmt::format("--memory-levels {}: expected 2 to 64 (three points at least for a fit)",
                            a.memory_levels));
  if (a.message_bytes < 1 || a.message_bytes > (1 << 20))
    throw Error(fmt::format("--message-bytes {}: expected 1 to 1048576", a.message_bytes));
  if (a.memory_clock != "cpu" && a.memory_clock != "wall")
    throw Error(fmt::format("--memory-clock '{}': expected cpu or wall", a.memory_clock));
  for (const std::string& s : a.skip)
    if (s != "memory" && s != "disk" && s != "net")
      throw Error(fmt::format("--skip '{}': expected memory, disk or net", s));
  auto colon = a.net_peer.rfind(':');
  if (!a.net_peer.empty() && (colon == std::string::npos || colon == 0 || colon + 1 == a.net_peer.size()))
    throw Error(fmt::format("--net-peer '{}': expected HOST:PORT", a.net_peer));
  struct stat st;
  if (::stat(a.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(fmt::format("--dir '{}': expected an existing directory for the disk probe's file", a.dir));
  if (a.output.empty() && a.net_serve == 0)
    throw Error("perfcast probe: expected -o FILE (the platform to write) or --net-serve PORT");
}

bool skipped(const ProbeArgs& a, const char* what) { return std::find(a.skip.begin(), a.skip.end(), what) != a.skip.end(); }

int run_probe(const ProbeArgs& a)
{
  check(a);
  if (a.net_serve != 0) {
    if (a.net_serve < 1 || a.net_serve > 65535)
      throw Error(fmt::format("--net-serve {}: expected a port from 1 to 65535", a.net_serve));
    std::cerr << fmt::format("echoing {}-byte messages on port {} for one peer\n", a.message_bytes, a.net_serve);
    probe::serve_net(a.net_serve, a.message_bytes);
    return 0;
  }
  OutputTarget out = check_output(a.output, "platform", a.force);
  probe::ProbeResult r;
  r.rule = {a.relative_error, a.min_samples, a.max_samples};
  r.memory_info = probe::read_meminfo();
  double memory_max = probe::default_memory_max(r.memory_info);
  if (!a.memory_max.empty())
    memory_max = size_option(a.memory_max, "--memory-max", 1 << 20,
                             a.allow_swap ? r.memory_info.available_bytes + 0.9 * r.memory_info.swap_total_bytes
                                          : 0.5 * r.memory_info.available_bytes);
  double disk_bytes = size_option(a.disk_size, "--disk-size", 1 << 20, 1 << 30);
  r.machine = describe_this_machine();

  bool tty = ::isatty(STDERR_FILENO);
  probe::RoundProgress progress = [tty](long round, const std::string& widest, const probe::Estimate& e) {
    if (tty)
      std::cerr << fmt::format("\r\033[Kprobe round {}: widest interval {} (mean {:.5g}, 95% half-width {:.2f}%)",
                               round, widest, e.mean, e.n > 1 ? 100 * e.relative_half_width() : 100.0)
                << std::flush;
  };
  // every probe takes one sample of each of its figures per round, in turn,
  // so that each figure's samples spread over the whole run
  probe::CpuSampler cpu(0.05, a.cpu_cores > 0 ? a.cpu_cores : r.machine.cores);
  std::unique_ptr<probe::MemorySampler> memory;
  std::unique_ptr<probe::DiskSampler> disk;
  std::unique_ptr<probe::NetSampler> net;
  std::vector<probe::SampleGroup> groups{{{"cpu"}, {true}, [&cpu] { return std::vector<double>{cpu.sample()}; }}};
  if (!skipped(a, "memory")) {
    memory = std::make_unique<probe::MemorySampler>(memory_max, a.memory_levels, r.memory_info,
                                                    a.memory_clock == "wall");
    auto names = memory->names();
    groups.push_back({names, std::vector<bool>(names.size(), true), [&memory] { return memory->sample(); }});
  }
  if (!skipped(a, "disk")) {
    r.disk_dir = a.dir;
    r.disk_file_bytes = disk_bytes;
    disk = std::make_unique<probe::DiskSampler>(a.dir, disk_bytes, a.cpu_cores > 0 ? a.cpu_cores : r.machine.cores);
    auto names = disk->names();
    // the disk's CPU cost is reported, but the rounds do not wait for it: on a
    // machine where it is about 0 its relative interval never narrows
    std::vector<bool> gating(names.size(), true);
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == "disk CPU per byte (direct write)")
        gating[i] = false;
    groups.push_back({names, gating, [&disk] { return disk->sample(); }});
  }
  if (!skipped(a, "net")) {
    net = a.net_peer.empty() ? std::make_unique<probe::NetSampler>(a.message_bytes)
                             : std::make_unique<probe::NetSampler>(a.net_peer, a.message_bytes);
    // o is reported with the one-way time; the rule waits for the one-way time only
    groups.push_back({{"messages one way", "messages overhead"}, {true, false}, [&net] { return net->sample(); }});
  }
  auto reporting_before = probe::read_page_reporting();
  auto start = std::chrono::steady_clock::now();
  auto estimates = probe::measure_interleaved(r.rule, groups, {a.min_seconds, {}}, progress);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (auto reporting_after = probe::read_page_reporting(); reporting_before && reporting_after)
    r.page_reported_bytes = std::max(0.0, reporting_after->reported_bytes - reporting_before->reported_bytes);
  r.min_seconds = a.min_seconds;
  std::size_t g = 0;
  r.cpu = cpu.figure(estimates[g++][0]);
  if (memory)
    r.memory = memory->figure(estimates[g++]);
  if (disk)
    r.disk = disk->figure(estimates[g++]);
  if (net)
    r.net = net->figure(estimates[g++]);
  net.reset(); // the loopback echo process ends before the memcpy timing
  r.loopback_bytes_per_s = measure_memcpy_rate();
  if (tty)
    std::cerr << "\r\033[K";
  write_output(out, probe::probe_platform(r).dump(2) + "\n");
  if (a.json)
    std::cout << probe::figures_json(r).dump(2) << "\n";
  else
    std::cout << probe::figures_text(r) << "wrote " << a.output << "\n";
  return 0;
}

} // namespace

void add_probe_commands(CLI::App& app, std::vector<Command>& out)
{
  auto a = std::make_shared<ProbeArgs>();
  auto* p = app.add_subcommand("probe", "measure this machine (cpu, memory slowdown, disk, messages) as a platform");
  p->add_option("-o,--output", a->output, "platform file to write (- for stdout)");
  p->add_flag("--json", a->json, "print the figures with their statistics as JSON");
  p->add_flag("--force", a->force, "replace an output file that perfcast did not write");
  p->add_option("--rel-error", a->relative_error,
                "repeat each figure until its 95% interval is within this fraction of its mean")
      ->capture_default_str();
  p->add_option("--min-samples", a->min_samples, "fewest repetitions of a figure")->capture_default_str();
  p->add_option("--max-samples", a->max_samples, "most repetitions of a figure")->capture_default_str();
  p->add_option("--cpu-cores", a->cpu_cores,
                "cores that run the CPU probe's mix at once (default 0: every core; the rate is a core's while the "
                "others are busy, as when processes fill the machine)")
      ->capture_default_str();
  p->add_option("--min-seconds", a->min_seconds,
                "keep taking rounds of samples (one of every figure per round) at least this long, so that each "
                "figure's interval covers the machine's drift over that time")
      ->capture_default_str();
  p->add_option("--memory-max", a->memory_max,
                "most memory the memory probe holds (default: 2GiB or a tenth of MemAvailable, the smaller; at most "
                "half of MemAvailable, or available plus 90% of swap with --allow-swap)");
  p->add_flag("--allow-swap", a->allow_swap,
              "let --memory-max go beyond main memory into swap, to measure the exponential part (not on a shared "
              "machine)");
  p->add_option("--memory-levels", a->memory_levels, "memory levels between 0 and --memory-max")
      ->capture_default_str();
  p->add_option("--memory-clock", a->memory_clock,
                "time the memory probe's reference task in its CPU time (cpu: robust to other load) or elapsed "
                "time (wall: also counts waiting for swap-ins)")
      ->capture_default_str();
  p->add_option("--dir", a->dir, "directory for the disk probe's temporary file")->capture_default_str();
  p->add_option("--disk-size", a->disk_size, "size of the disk probe's file (1MiB to 1GiB)")->capture_default_str();
  p->add_option("--net-peer", a->net_peer,
                "HOST:PORT of `perfcast probe --net-serve PORT` on another host: messages between the two hosts "
                "instead of loopback");
  p->add_option("--net-serve", a->net_serve, "echo messages for one --net-peer on PORT, then exit");
  p->add_option("--message-bytes", a->message_bytes, "size of the probe's messages")->capture_default_str();
  p->add_option("--skip", a->skip, "probes to leave out: memory, disk, net (the cpu is always probed)")
      ->delimiter(',');
  out.push_back({p, [a] { return run_probe(*a); }});
}

} // namespace perfcast::cli
