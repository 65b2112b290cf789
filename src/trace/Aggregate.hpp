#pragma once
// Aggregation of a time-independent trace to fewer ranks (Tesser et al. 2016,
// section 4.2): a trace recorded at V ranks stands for the same program at
// V' < V ranks, each coarse rank doing the work of a group of fine ranks.
//
// Iterations are delimited by `migrate` lines and split into segments by the
// collectives on MPI_COMM_WORLD. Per group, iteration and segment, the coarse
// rank computes the sum of its members' computation before their first
// message to another group, posts one receive and one send per other group
// (the bytes of all their messages between the two groups merged), computes
// the members' computation between messages, waits for them, computes the
// rest, then joins the collective on the coarse world. Messages inside a
// group vanish; migrate lines are kept with the members' heap bytes summed.
#include "trace/Action.hpp"
#include "trace/RankGrouping.hpp"
#include "trace/TraceIndex.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace perfcast {

/// What an aggregation did.
struct AggregateSummary {
  int fine_ranks = 0;
  int coarse_ranks = 0;
  int iterations = 0;                  ///< migrate lines per rank
  std::uint64_t messages_in = 0;       ///< point-to-point sends of the fine trace
  std::uint64_t messages_inside = 0;   ///< of them, inside a group (gone)
  std::uint64_t messages_out = 0;      ///< sends of the coarse trace
};

/// The coarse trace in memory, one action list per coarse rank; throws Error
/// (file:line: what was expected) on actions it cannot aggregate.
std::vector<std::vector<Action>> aggregate_trace(const TraceIndex& fine, const RankGrouping& grouping,
                                                 AggregateSummary* summary = nullptr);

/// Aggregates the trace at `index_path` and writes it as a trace directory
/// (trace.txt and rank-R.txt) that `perfcast replay` reads. The directory
/// follows the output rule: one perfcast wrote is replaced, one holding other
/// files needs `force`.
AggregateSummary aggregate_trace_to(const std::string& index_path, const RankGrouping& grouping,
                                    const std::string& out_dir, bool force);

} // namespace perfcast
