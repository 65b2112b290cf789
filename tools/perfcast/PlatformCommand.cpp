// perfcast platform: describe the machine perfcast runs on as a platform file.
#include "Command.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "forecast/Speeds.hpp"
#include "platform/ThisMachine.hpp"
#include "probe/CpuRate.hpp"

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
    TracedRates traced = traced_rates({a.trace});
    if (traced.unit.empty())
      fail_in(a.trace, "no tracer header (expected a directory written by perfcast trace)");
    if (!(traced.reference > 0))
      fail_in(a.trace, "the trace header records no positive rate (expected flops_per_s or instructions_per_s)");
    for (const std::string& host : traced.hosts)
      if (host != machine.host)
        std::cerr << fmt::format("warning: {} was traced on '{}', not on this machine '{}'; its speed is used with "
                                 "this machine's topology\n",
                                 a.trace, host, machine.host);
    speed.flops_per_core = traced.reference;
    speed.how = fmt::format("traced run {}: median of the tracer's rates at MPI_Init (each rank's host's), in {} per "
                            "second (the unit of the trace's compute values)",
                            a.trace, traced.unit);
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
