// perfcast platform: describe the machine perfcast runs on as a platform file.
#include "Command.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "platform/ThisMachine.hpp"
#include "probe/CpuRate.hpp"
#include "trace/Tracing.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <iostream>

namespace perfcast::cli {
namespace {

struct PlatformArgs {
  bool this_machine = false;
  std::string trace;
  std::string output;
  bool force = false;
};

int run_platform(const PlatformArgs& a)
{
  if (!a.this_machine)
    throw Error("perfcast platform: say what to describe (expected --this-machine)");
  OutputTarget out = check_output(a.output, "platform", a.force);
  MachineDescription machine = describe_this_machine();
  SpeedSource speed;
  if (!a.trace.empty()) {
    // the rate the tracer measured at MPI_Init, in the unit the trace's compute values use
    auto headers = read_trace_headers(a.trace);
    std::vector<double> rates;
    std::string unit = headers.front().compute_unit;
    for (const TracedRankHeader& h : headers) {
      if (h.compute_unit != unit)
        fail_in(a.trace, fmt::format("rank {} counts computation in {} but rank 0 in {} (expected one unit)", h.rank,
                                     h.compute_unit, unit));
      if (h.host != machine.host)
        std::cerr << fmt::format("warning: rank {} was traced on '{}', not on this machine '{}'; its speed is used "
                                 "with this machine's topology\n",
                                 h.rank, h.host, machine.host);
      rates.push_back(unit == "instructions" ? h.instructions_per_s : h.flops_per_s);
    }
    std::sort(rates.begin(), rates.end());
    speed.flops_per_core = rates[rates.size() / 2];
    if (!(speed.flops_per_core > 0))
      fail_in(a.trace, "the trace header records no positive rate (expected flops_per_s or instructions_per_s)");
    speed.how = fmt::format("traced run {}: median over {} ranks of the tracer's rate at MPI_Init, in {} per second "
                            "(the unit of the trace's compute values)",
                            a.trace, rates.size(), unit);
  } else {
    speed = {measure_core_flop_rate(), "measured now: one core on eight multiply-add chains, the kernel the tracer "
                                       "times at MPI_Init without hardware counters"};
  }
  double loopback = measure_memcpy_rate();
  write_output(out, this_machine_platform(machine, speed, loopback).dump(2) + "\n");
  std::cerr << fmt::format("{}: {} ({} cores, {} hardware threads, {:.3g} GiB), {:.4g} Gflop/s per core, loopback "
                           "{:.3g} GB/s\n",
                           a.output, machine.host, machine.cores, machine.hardware_threads,
                           machine.memory_bytes / (1 << 30), speed.flops_per_core / 1e9, loopback / 1e9);
  return 0;
}

} // namespace

void add_platform_commands(CLI::App& app, std::vector<Command>& out)
{
  auto a = std::make_shared<PlatformArgs>();
  auto* pl = app.add_subcommand("platform", "write a platform file describing a machine");
  pl->add_flag("--this-machine", a->this_machine,
               "this machine: host name, cores (hwloc), per-core speed and loopback bandwidth measured now");
  pl->add_option("--trace", a->trace,
                 "a directory written by perfcast trace on this machine: take the speed its tracer measured, in the "
                 "unit of its compute values, so that its replay here reproduces its computation times");
  pl->add_option("-o,--output", a->output, "platform file to write (- for stdout)")->required();
  pl->add_flag("--force", a->force, "replace an output file that perfcast did not write");
  out.push_back({pl, [a] { return run_platform(*a); }});
}

} // namespace perfcast::cli
