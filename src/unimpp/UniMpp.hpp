#pragma once
// UniMPP, the unified process cost model of de Mello and Senger, "Model for
// Simulation of Heterogeneous High-Performance Computing Environments"
// (../shared/papers/unimpp-schedsim-mello-senger.txt), equations 2 to 9.
//
// A computer c_i is {pc_i, mm_i, vm_i, dr_i, dw_i, lo_i}; a process p_j has a
// processing demand mp_j, memory, disk reads and writes, messages and a
// voluntary delay lz. Its response time on c_i is
//   TE   = mp / pc                                  (eq. 2)
//   TEM  = TE (1 + alpha(memory in use))            (eq. 3)
//   SLDR = sum_k bsize_k / dr + wtdr_k              (eq. 4)
//   SLDW = sum_k bsize_k / dw + wtdw_k              (eq. 5)
//   SLN  = sum_k theta_k + wtn_k                    (eq. 6)
//   theta = 2 o + l                                 (eq. 7)
//   SL   = TEM + SLDR + SLDW + SLN + lz             (eq. 8)
// and across the computers a migrating process visits, the sum (eq. 9).
// The waiting times (wt*) are what a simulator of the shared resources adds;
// here they are inputs.
#include <string>
#include <vector>

namespace perfcast::unimpp {

/// Slowdown alpha against memory in use (the paper's memo benchmark, Table 2):
/// linear while the main memory holds everything, exponential once the
/// virtual memory is used. x is in megabytes, as the paper's regressions.
struct MemorySlowdown {
  double linear_slope = 0;      ///< alpha = slope x + intercept, x <= main memory
  double linear_intercept = 0;
  double exp_scale = 0;         ///< alpha = scale exp(rate x), x > main memory
  double exp_rate = 0;
  /// alpha for x megabytes in use on a computer with main_mb of main memory
  /// (never negative: a regression's intercept below 0 means no slowdown).
  double alpha(double x_mb, double main_mb) const;
};

/// A computer as UniMPP describes it.
struct Computer {
  std::string name;
  double instructions_per_s = 1;   ///< pc
  double main_memory_mb = 0;       ///< mm
  double virtual_memory_mb = 0;    ///< vm
  double disk_read_bytes_per_s = 1;  ///< dr
  double disk_write_bytes_per_s = 1; ///< dw
  double disk_cpu_s_per_byte = 0;    ///< core-seconds per disk byte outside the processes (perfcast)
  /// writing while the processes want every core (perfcast; 0 = disk_write_bytes_per_s)
  double disk_write_busy_bytes_per_s = 0;
  double message_overhead_s = 0;   ///< o: packing or unpacking one message
  double message_latency_s = 0;    ///< l: carrying it
  MemorySlowdown slowdown;
};

/// One access to a shared resource: its size and how long it queued.
struct Access {
  double bytes = 0;
  double waited_s = 0;
};

/// What a process does on one computer.
struct ProcessStay {
  double instructions = 0;      ///< mp (the part executed on this computer)
  double memory_in_use_mb = 0;  ///< the computer's occupation while it runs, for alpha
  std::vector<Access> reads, writes;
  std::vector<Access> messages; ///< bytes are not used by eq. 7; waits are
  double sleep_s = 0;           ///< lz
};

/// The terms of equation 8, each in seconds.
struct ResponseTime {
  double processing_s = 0;    ///< TE
  double memory_delay_s = 0;  ///< TEM - TE
  double disk_read_s = 0;     ///< SLDR
  double disk_write_s = 0;    ///< SLDW
  double messages_s = 0;      ///< SLN
  double sleep_s = 0;         ///< lz
  double total_s() const { return processing_s + memory_delay_s + disk_read_s + disk_write_s + messages_s + sleep_s; }
};

/// theta = 2 o + l (eq. 7).
double message_time(const Computer& c);

/// Moving a process's memory to another computer: memory_mb * 1e6 / bytes_per_s
/// + latency (no bandwidth term when bytes_per_s is 0), the migration term of eq. 9.
double migration_time(double memory_mb, double bytes_per_s, double latency_s);

/// Equation 8 for one stay of a process on a computer.
ResponseTime response_time(const Computer& c, const ProcessStay& stay);

/// Equation 9: a process that ran on several computers (in order) in turn.
ResponseTime response_time(const std::vector<Computer>& computers, const std::vector<ProcessStay>& stays);

} // namespace perfcast::unimpp
