#pragma once
// `perfcast comm synth`: a time-independent trace of the MPI code that does
// not exist yet, from the value graph of `perfcast comm run`. Per region call
// each process exchanges its messages with its partners (the estimate's
// matrix, spread evenly over the calls), computes its share of the values
// (its partition's vertex weights times a cost per value), and runs the
// collectives of the singletons.
#include "comm/ValueGraph.hpp"

#include <string>

namespace perfcast::comm {

/// What `perfcast comm synth` was asked for.
struct SynthOptions {
  int procs = 0;
  double flops_per_value = 0; ///< compute cost of one value computed in the region
  std::string output;         ///< trace directory (index trace.txt, rank-N.txt)
};

/// Writes the synthetic trace; throws Error on bad options or a graph that cannot be split.
void write_synthetic_trace(const ValueGraph& graph, const SynthOptions& options);

} // namespace perfcast::comm
