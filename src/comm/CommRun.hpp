#pragma once
// `perfcast comm run`: runs a program built with perfcast-cc (the comm pass
// and runtime) on its input, reads the value graph it writes at exit, and
// estimates the communication of its MPI version for each process count.
// The results go to DIR/comm.json (and the graph to DIR/values.graph, the
// figures to DIR/bytes.svg and DIR/matrix.svg), all written only when
// everything succeeded.
#include "comm/CommEstimate.hpp"
#include "comm/ValueGraph.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast::comm {

/// What `perfcast comm run` was asked to do.
struct CommRunOptions {
  std::vector<std::string> command; ///< the instrumented program and its arguments
  std::vector<int> procs;           ///< process counts to estimate
  std::string dir;                  ///< output directory
  std::string region;               ///< function whose calls are analysed, empty for the whole run
  std::uint64_t memory_limit = 0;   ///< bytes the analysis may use, 0 for no limit
  int heatmap_procs = 0;            ///< process count drawn in matrix.svg, 0 for the largest of `procs`
  bool force = false;               ///< replace a directory holding files perfcast did not write
};

/// The plain (uninstrumented) run of the same binary and the cost of a value it gives.
struct PlainRun {
  double region_cpu_seconds = 0; ///< CPU seconds inside the region (the whole run without one)
  double cpu_seconds = 0;        ///< CPU seconds of the whole run
  double flop_rate = 0;          ///< flop/s of the core, measured as the tracer does (or PERFCAST_FLOP_RATE)
  double flops_per_value = 0;    ///< region_cpu_seconds * flop_rate / values computed in the region
};

/// The analysis of one run and its estimates.
struct CommResult {
  ValueGraph graph;
  Singletons singletons; ///< of graph, detected once for the estimates and comm.json
  std::vector<CommEstimate> estimates;
  double seconds = 0; ///< wall time of the instrumented run
  PlainRun plain;     ///< zero when no plain run was made
};

/// Reads the times a plain run wrote and derives the cost of one of the graph's region values.
PlainRun read_plain_run(const std::string& path, const ValueGraph& graph);

/// Runs the analysis end to end; throws Error with the reason when the
/// program fails, is killed, was not instrumented, exceeds the memory limit
/// or never enters the region, leaving DIR as it was.
CommResult run_comm_analysis(const CommRunOptions& options);

/// Estimates from a graph already read (the part of run_comm_analysis after the run).
CommResult analyse_graph(ValueGraph graph, const std::vector<int>& procs, const std::string& what);

/// comm.json: format perfcast-comm, version 1.
nlohmann::json comm_to_json(const CommResult& result, const std::vector<std::string>& command);

/// The table `perfcast comm report` prints, from a comm.json document.
std::string format_comm_report(const nlohmann::json& comm, const std::string& name);

} // namespace perfcast::comm
