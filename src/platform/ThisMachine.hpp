#pragma once
// A description of the machine perfcast runs on, for replaying a run traced
// here on a platform that has this machine's name, cores and speed.
// Topology comes from hwloc; speeds from a traced run's header (the rate the
// tracer measured at MPI_Init) or, without one, from probe/CpuRate.
#include <nlohmann/json.hpp>
#include <string>

namespace perfcast {

struct MachineDescription {
  std::string host;         ///< as the tracer records it (gethostname)
  std::string cpu_model;    ///< hwloc's CPUModel, when known
  int cores = 1;            ///< physical cores
  int hardware_threads = 1; ///< processing units
  double memory_bytes = 0;
};

/// Reads this machine's topology with hwloc; throws Error when hwloc cannot.
MachineDescription describe_this_machine();

/// Where the speed in a this-machine platform came from.
struct SpeedSource {
  double flops_per_core = 0;
  std::string how; ///< "traced run DIR (time x flop rate)", "measured now (...)"
};

/// A perfcast platform (JSON) with one host named after the machine, its
/// cores and speed, and a loopback link for messages between its ranks.
nlohmann::json this_machine_platform(const MachineDescription& machine, const SpeedSource& speed,
                                     double loopback_bytes_per_s);

} // namespace perfcast
