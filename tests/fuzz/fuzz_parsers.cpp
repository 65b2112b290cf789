// libFuzzer targets for perfcast's readers of user input, one per mode: the
// first byte is the mode's option (world size, file kind, network), the rest
// is its input: trace lines, SimGrid platform XML, perfcast
// platform JSON, run files, model files, hostfiles and placement strings, unit
// and option strings, small traces replayed on a tiny platform, and the
// scheduler's workloads (processes, generated processes) and jobs (rigid
// jobs, SWF logs, sidecars). Any input
// must give a value or a perfcast::Error, never a crash, a hang, undefined
// behaviour or another exception; parsed trace values must be within limits.
// Build and run: tests/fuzz/run.sh (clang-14, -fsanitize=fuzzer,address,undefined).
#include "core/Error.hpp"
#include "core/Units.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/Study.hpp"
#include "sched/Jobs.hpp"
#include "sched/Workload.hpp"
#include "sim/Replay.hpp"
#include "trace/TraceReader.hpp"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

using namespace perfcast;

// every route between the first hosts must resolve without crashing
void exercise_routes(const Platform& p)
{
  for (int a = 0; a < static_cast<int>(p.hosts().size()) && a < 4; ++a)
    for (int b = 0; b < static_cast<int>(p.hosts().size()) && b < 4; ++b)
      if (p.has_route(a, b))
        p.route(a, b);
}

const Platform& tiny_platform()
{
  static const Platform platform = parse_json_platform(
      R"({"format": "perfcast-platform", "version": 1, "clusters": [{"name": "c", "bandwidth": "1Gbps",
          "latency": "10us", "nodes": [{"prefix": "n", "count": 4, "speed": "1Gf", "cores": 2}]}]})",
      "tiny.json");
  return platform;
}

// A scratch file of this process for readers that take a path.
std::string scratch(const std::string& name, std::string_view text)
{
  std::string path = "/tmp/perfcast-fuzz-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

void check(bool ok)
{
  if (!ok)
    std::abort();
}

// Each line through the trace grammar; what it accepts must be within limits.
void fuzz_trace_lines(std::string_view text, int world)
{
  Action action;
  std::string error;
  int default_datatype = 6;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    // the quick path may only take lines that the full reader reads the same way
    Action quick;
    if (parse_trace_line_quick(line, world, default_datatype, quick)) {
      Action full;
      int datatype = default_datatype;
      check(parse_trace_line_full(line, world, datatype, full, error) && error.empty() && datatype == default_datatype);
      check(quick.type == full.type && quick.rank == full.rank && quick.partner == full.partner &&
            quick.partner2 == full.partner2 && quick.tag == full.tag && quick.bytes == full.bytes &&
            quick.recv_bytes == full.recv_bytes && quick.value == full.value && quick.comm == full.comm);
    }
    if (parse_trace_line(line, world, default_datatype, action, error) && error.empty()) {
      check(action.rank >= 0 && action.rank < world);
      check(action.bytes <= kMaxMessageBytes && action.recv_bytes <= kMaxMessageBytes);
      check(action.value >= 0 && action.value <= kMaxActionValue);
      for (const auto* counts : {&action.send_counts, &action.recv_counts}) {
        std::uint64_t sum = 0;
        for (std::uint64_t c : *counts)
          sum += c;
        check(sum <= kMaxMessageBytes && (counts->empty() || counts->size() == static_cast<std::size_t>(world)));
      }
      check(default_datatype == 0 || default_datatype == 6);
      check(line_rank(line) == action.rank);
    }
    if (end == std::string_view::npos)
      break;
    start = end + 1;
  }
}

// A one-file trace of at most 8 ranks, replayed; loop blocks are left out
// because a loop whose stop tag never comes runs until the progress check.
void fuzz_replay(std::string_view text, bool loggp)
{
  if (text.find("loop_begin") != std::string_view::npos)
    return;
  std::string file = scratch("trace.txt", text);
  std::string index_path = scratch("index.txt", file + "\n");
  TraceIndex index = read_trace_index(index_path);
  if (index.ranks() > 8)
    return;
  Placement placement = place_by_policy(tiny_platform(), "round-robin", index.ranks());
  ReplayOptions options;
  options.network = loggp ? "loggp" : "smpi";
  options.progress = [](std::uint64_t actions, double) {
    if (actions > (1u << 20))
      throw Error("fuzz: too many actions");
  };
  replay_trace(index, tiny_platform(), placement, options);
}

void fuzz_placement(std::string_view text, int ranks)
{
  std::size_t nl = text.find('\n');
  std::string policy(text.substr(0, nl));
  try {
    place_by_policy(tiny_platform(), policy, ranks);
  } catch (const Error&) {
  }
  place_by_hostfile(tiny_platform(), scratch("hostfile", text), ranks);
}

void fuzz_units(const std::string& text)
{
  parse_speed(text);
  parse_bandwidth(text);
  parse_duration(text);
  parse_number(text);
  parse_proc_counts(text);
}

// a generated workload's memory grows with its count by design: large counts
// are not what this target looks for
bool small_generated_count(const std::string& text)
{
  const auto at = text.find("\"count\"");
  if (at == std::string::npos)
    return true;
  const auto digits = text.find_first_of("0123456789", at);
  return digits == std::string::npos || text.find_first_not_of("0123456789", digits) - digits <= 4;
}

void fuzz_workload(const std::string& text)
{
  if (small_generated_count(text))
    sched::parse_workload(text, "workload.json");
}

// jobs (JSON or SWF); an odd option also reads the text as a sidecar of a two-job log
void fuzz_jobs(const std::string& text, bool sidecar)
{
  if (!sidecar) {
    if (small_generated_count(text))
      sched::parse_any_workload(text, "jobs.json");
    return;
  }
  auto log = sched::parse_any_workload(R"({"format": "perfcast-workload", "version": 1,
      "jobs": [{"id": 1, "procs": 2, "run_s": 10}, {"id": 2, "procs": 1, "run_s": 5}]})",
                                       "log.json");
  sched::apply_sidecar(log.jobs, text, "sidecar.json");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  if (size == 0)
    return 0;
#ifdef PERFCAST_FUZZ_MODE
  // one target per mode (CMakeLists.txt); the first byte is its option
  const int mode = PERFCAST_FUZZ_MODE;
  const std::uint8_t option = data[0];
#else
  const int mode = data[0] % 10;
  const std::uint8_t option = data[0] / 10;
#endif
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (mode) {
    case 0: fuzz_trace_lines(text, 1 + option % 7); break;
    case 1: exercise_routes(parse_simgrid_platform(text, "fuzz.xml")); break;
    case 2: exercise_routes(parse_json_platform(text, "fuzz.json")); break;
    case 3: load_runs(scratch(option % 2 ? "runs.json" : "runs.csv", text)); break;
    case 4: model_from_json(text, "model.json"); break;
    case 5: fuzz_placement(text, 1 + option % 16); break;
    case 6: fuzz_units(text); break;
    case 7: fuzz_replay(text, option % 2 == 1); break;
    case 8: fuzz_workload(text); break;
    default: fuzz_jobs(text, option % 2 == 1); break;
    }
  } catch (const Error&) {
  }
  return 0;
}
