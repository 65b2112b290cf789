#pragma once
// Workloads and computers for the process scheduling simulator.
//
// A workload file is JSON: {"format": "perfcast-workload", "version": 1,
// "processes": [{"id": 0, "arrival_s": 0.5, "memory_mb": 64, "stages":
// [["cpu", 2e9], ["read", 1e6], ["write", 4e6], ["message", 32], ["sleep", 1]]}]}
// or, instead of "processes", "generate": {"count": N, "seed": S, "arrival":
// DIST, "cpu": DIST, "memory_mb": DIST, "read_bytes": DIST, "write_bytes": DIST,
// "messages": DIST, "message_bytes": DIST} with distributions as
// core/Distribution parses them ("exp:mean=2"); each generated process reads,
// computes, writes, then sends its messages.
#include "platform/Platform.hpp"
#include "sched/ProcessSim.hpp"

#include <string>
#include <vector>

namespace perfcast::sched {

/// Reads a workload file; throws Error naming the file and the field.
std::vector<ProcessSpec> load_workload(const std::string& path);
/// The same from text; `path` names it in errors.
std::vector<ProcessSpec> parse_workload(const std::string& text, const std::string& path);

/// Every host of the platform as a computer (speed per core as instructions
/// per second, memory, disks, message costs, memory slowdown, and as network
/// interface the first link of its route to the next host, or its loopback when alone).
std::vector<ComputerSpec> computers_from_platform(const Platform& platform);

/// Checks that the computers can run the workload at all: a disk figure for
/// every kind of disk stage, and for each process a computer with enough
/// main plus virtual memory. Throws Error naming the process or the host.
void check_feasible(const std::vector<ComputerSpec>& computers, const std::vector<ProcessSpec>& processes,
                    const std::string& workload_path);

} // namespace perfcast::sched
