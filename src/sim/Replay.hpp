#pragma once
// Trace replay: a discrete-event simulation of every rank's actions on a
// platform, with MPI point-to-point semantics (non-overtaking matching on
// source, tag and context; wildcards; eager below a threshold, rendezvous
// above; detached sends), collectives as point-to-point schedules, CPU sharing
// and a pluggable network model.
#include "net/NetworkModel.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "report/Timeline.hpp"
#include "sim/Collectives.hpp"
#include "trace/TraceReader.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfcast {

struct ReplayOptions {
  std::string network = "smpi";
  NetworkOptions network_options;
  CollectiveChoice collectives;
  double eager_threshold_bytes = 65536; ///< smpi/send-is-detached-thresh: sends below it return at once
  double envelope_bytes = 16;           ///< added to each message on the wire (SMPI's MPI envelope)
  double test_cost_s = 1e-4;            ///< smpi/test: simulated time of one MPI_Test
  bool record_timeline = false;
  /// Called now and then with (actions done, simulated time); may be empty.
  std::function<void(std::uint64_t, double)> progress;
  /// When set, each rank's actions come from here (a generator) instead of the trace's files, whose index then
  /// gives only the rank count.
  std::function<std::unique_ptr<ActionStream>(int rank)> rank_source;
};

struct RankReport {
  int rank = 0;
  int host = 0;
  double finish_s = 0;
  double compute_s = 0;
  double communicate_s = 0; ///< blocked in MPI while a transfer was under way
  double wait_s = 0;        ///< blocked in MPI before the partner arrived
  double sleep_s = 0;
  std::uint64_t actions = 0;
  std::uint64_t messages_sent = 0, bytes_sent = 0;
  std::uint64_t messages_received = 0, bytes_received = 0;
  /// messages and bytes of one kind of traffic
  struct Traffic {
    std::uint64_t messages = 0, bytes = 0;
  };
  /// point-to-point messages the trace's own sends made, per destination rank (collective schedules excluded)
  std::map<int, Traffic> partners;
  /// the same per destination and size class k (as `sizes`)
  std::map<int, std::map<int, Traffic>> partner_sizes;
  Traffic collective; ///< messages the collectives' point-to-point schedules sent
  /// calls of one collective type on a communicator of every rank (MPI_COMM_WORLD or a copy)
  struct CollectiveCalls {
    std::uint64_t calls = 0;
    std::uint64_t root_calls = 0; ///< of them, rooted calls whose root was this rank
    double payload_bytes = 0;     ///< summed over the calls: collective_payload_bytes of each
  };
  /// per collective type ("allreduce"; a non-blocking call under its blocking name)
  std::map<std::string, CollectiveCalls> collective_calls;
  /// all messages sent, per size class k: sizes in [2^(k-1), 2^k) bytes (k = 0: empty messages)
  std::map<int, Traffic> sizes;
};

/// The computation between collectives on every rank (MPI_COMM_WORLD or a copy), phase by phase: ranks meet at
/// each such collective, so the run waits for each phase's slowest rank, whose sum can exceed the slowest rank's
/// whole computation by far (the queueing model's lockstep CPU phase, docs/models.md). In the
/// trace's flops, whatever the hosts; only phases that every rank closed count.
struct ComputePhases {
  std::uint64_t phases = 0;
  double slowest_flops = 0; ///< summed over the phases: the rank that computed most in each
  double mean_flops = 0;    ///< summed over the phases: the ranks' mean
};

struct ReplayReport {
  double makespan_s = 0;
  std::string network;
  std::uint64_t actions = 0;
  std::vector<RankReport> ranks;
  ComputePhases phases;
  Timeline timeline; ///< binned activity per rank, filled when record_timeline is set
};

/// Replays a trace; throws Error for bad input and for deadlocks (naming the
/// blocked ranks and their pending actions).
ReplayReport replay_trace(const TraceIndex& trace, const Platform& platform, const Placement& placement,
                          const ReplayOptions& options);

} // namespace perfcast
