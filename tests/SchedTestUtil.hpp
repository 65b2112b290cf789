#pragma once
// The computer the scheduling tests share: 1 GHz-like speed (or `speed`),
// 1 GiB of memory, disks reading at 100 MB/s and writing at 50 MB/s, a
// 125 MB/s network interface, 10 us message overhead and 30 us latency.
#include "sched/ProcessSim.hpp"

namespace perfcast::test {

inline sched::ComputerSpec sched_computer(int cores, double speed = 1e9)
{
  sched::ComputerSpec c;
  c.model.name = "c";
  c.model.instructions_per_s = speed;
  c.model.main_memory_mb = 1024;
  c.model.disk_read_bytes_per_s = 100e6;
  c.model.disk_write_bytes_per_s = 50e6;
  c.model.message_overhead_s = 10e-6;
  c.model.message_latency_s = 30e-6;
  c.cores = cores;
  c.network_bytes_per_s = 125e6;
  return c;
}

} // namespace perfcast::test
