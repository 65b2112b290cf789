#pragma once
// Running a program under the PMPI tracer (tools/tracer) and reading what it
// wrote: rank traces, the index, per-rank profiles and the run profile.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast {

/// The tracer library for an implementation ("openmpi" or "mpich"):
/// $PERFCAST_TRACER_LIB, else libperfcast_tracer.so (Open MPI) or
/// libperfcast_tracer_mpich.so beside the perfcast executable. Throws Error when
/// there is none.
std::string find_tracer_library(const std::string& mpi = "openmpi");

struct RankProfile {
  int rank = 0;
  std::string host;
  bool complete = false;       ///< the trace ends with the completion marker
  std::string ended_by;        ///< why an incomplete trace stopped
  bool has_profile = false;    ///< rank-R.profile.json exists (written at MPI_Finalize)
  double wall_s = 0, compute_s = 0, mpi_s = 0;
  unsigned long long messages_sent = 0, bytes_sent = 0, messages_received = 0, bytes_received = 0;
  unsigned long long collectives = 0;
  std::map<std::string, std::pair<unsigned long long, double>> calls; ///< name -> (calls, seconds)
  std::string compute_unit;
};

struct RunProfile {
  std::string dir;
  std::vector<RankProfile> ranks;
  bool complete = false;
  double wall_s = 0; ///< slowest rank
};

/// Runs `command` (e.g. mpirun -np 4 ./app) with the tracer preloaded, writing
/// into `dir`; refuses an existing non-empty directory unless `force`. SIGINT
/// and SIGTERM are passed on to the command. Afterwards writes the index
/// (trace.txt) and the run profile (profile.json), and returns that profile
/// with the command's exit status (128 + signal when it was killed).
struct TracedRun {
  int status = 0;
  RunProfile profile;
  int interrupted = 0; ///< the signal (Ctrl-C's SIGINT, SIGTERM) that stopped the run, or 0
};
TracedRun run_traced(const std::string& dir, bool force, const std::vector<std::string>& command,
                     const std::string& mpi = "auto");

/// How one rank measured computation: the `# perfcast: header` line its trace starts with.
struct TracedRankHeader {
  int rank = 0;
  int size = 0;
  std::string host;
  std::string compute_unit;      ///< "flops" (elapsed time x flops_per_s) or "instructions" (retired)
  double flops_per_s = 0;        ///< the rate its CPU seconds were converted at: its host's median (older traces: its own)
  double rank_flops_per_s = 0;   ///< the rank's own measurement, on multiply-add chains at MPI_Init
  double instructions_per_s = 0; ///< on the same loop, from the counter; 0 without hardware counters
  std::string compute_threads;   ///< "calling" (the thread that calls MPI) or "all" (threads started after MPI_Init)
  std::string thread_level;      ///< single, funneled, serialized or multiple, as MPI provided it
  std::string compute_clock;     ///< "thread_cpu" (CPU time of the calling thread), "counter", or "wall" (older traces)
  std::string program;           ///< the executable's name ("" in older traces)
};

/// Reads the header of every rank-R.txt in a traced directory, in rank order;
/// throws Error (file:line: what was expected) when one is missing or malformed.
std::vector<TracedRankHeader> read_trace_headers(const std::string& dir);

/// Reads a trace directory written by the tracer; throws Error naming what is missing.
RunProfile read_run_profile(const std::string& dir);
/// perfcast-runs JSON (usable by `perfcast fit qn`) with per-rank details.
nlohmann::json run_profile_to_json(const RunProfile& profile);
/// A readable report: run summary, per-rank table, time per MPI call.
std::string format_run_profile(const RunProfile& profile);
/// Writes trace.txt and profile.json into the directory (atomically).
void write_trace_index_and_profile(const RunProfile& profile);

} // namespace perfcast
