#pragma once
// The discrete-event replay engine: every rank is a state machine over its
// trace; an action expands into micro-ops (ReplayActions.cpp) that a rank runs
// until one blocks (ReplayRequests.cpp); sends meet receives in the mailboxes
// (Matching.cpp); time advances to the next network, CPU or timer event.
#include "net/CompletionHeap.hpp"
#include "net/NetworkModel.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "report/Timeline.hpp"
#include "sim/CpuModel.hpp"
#include "sim/Mailboxes.hpp"
#include "sim/OverDecomposed.hpp"
#include "sim/ReplayState.hpp"

#include <deque>
#include <string>

namespace perfcast::replay {

class ReplayEngine {
public:
  ReplayEngine(const TraceIndex& trace, const Platform& platform, const Placement& placement,
               const ReplayOptions& options);
  /// Replays every rank to its end; throws Error on a deadlock.
  ReplayReport run();
  /// Makes the ranks VPs on cores (over-decomposed replay); call before run(). Keeps a reference to options.
  void set_vp(const VpOptions& options, const Placement& core_host);
  /// The VP figures of a finished run, around its replay report.
  VpReport take_vp_report(ReplayReport replay);

private:
  Exec& exec(std::uint32_t e) { return execs_[e]; }
  Rank& rank_of(const Exec& x) { return ranks_[static_cast<std::size_t>(x.rank)]; }
  [[noreturn]] void fail_action(const Rank& rank, const std::string& what) const;

  // ---- execution (ReplayEngine.cpp)
  void step(std::uint32_t e);
  bool fetch(std::uint32_t e);
  bool next_action(Rank& rank, Action& out);
  void resume_from(std::uint32_t e, Status expected);
  void span(int r, SpanKind kind, double a, double b)
  {
    if (options_.record_timeline)
      timeline_.add(static_cast<std::size_t>(r), kind, a, b);
  }

  // ---- actions and communicators (ReplayActions.cpp)
  int comm_index(Rank& rank, int handle);
  int local_rank(const Rank& rank, int comm) const;
  int world_rank(const Rank& rank, int comm, int local) const;
  void map_ops(const Rank& rank, int comm, std::vector<MicroOp>& ops, std::size_t from, std::uint32_t seq);
  void expand(std::uint32_t e, const Action& a);
  void expand_comm_create(std::uint32_t e, const Action& a, int parent, int me);
  void comm_create(std::uint32_t e, const MicroOp& op);
  void start_background_collective(std::uint32_t e, const Action& a, int comm, int me, int size, std::uint32_t seq);
  void finish_background(std::uint32_t b);

  // ---- micro-ops and trace-level requests (ReplayRequests.cpp)
  void execute(std::uint32_t e, const MicroOp& op);
  int local_of_world(int comm, int world) const;
  std::vector<Pending>::iterator find_pending(Rank& rank, const MicroOp& op);
  void cancel(Rank& rank, const MicroOp& op);
  void wait_any(std::uint32_t e, const MicroOp& op);
  void test(std::uint32_t e, const MicroOp& op);
  void test_check(Rank& rank);
  void test_all(std::uint32_t e);
  void test_delay(std::uint32_t e, OpCode check);
  void test_all_check(Rank& rank);

  // ---- matching, transfers, completion (Matching.cpp)
  std::uint32_t new_request() { return requests_.acquire(); }
  void release(std::uint32_t id)
  {
    if (--requests_[id].refs == 0)
      requests_.release(id);
  }
  std::uint32_t post_send(std::uint32_t e, const MicroOp& op);
  std::uint32_t post_recv(std::uint32_t e, const MicroOp& op);
  void start_transfer(std::uint32_t send, std::uint32_t recv);
  void transfer_done(std::uint32_t flow);
  void complete(std::uint32_t id);
  void block_on_one(std::uint32_t e, std::uint32_t req);
  void block_on(std::uint32_t e, const std::vector<std::uint32_t>& reqs);

  // ---- VPs on cores, balancing steps, migrations (VirtualProcessors.cpp)
  void want_core(std::uint32_t e);
  void leave_core(std::uint32_t e);
  void add_iteration_load(Rank& rank);
  void migration_point(std::uint32_t e);
  void vp_trace_ended(Rank& rank);
  void balance();
  void start_migrations();
  void end_balance();
  void charge_message_cpu(std::uint32_t e);
  void migration_done();

  // ---- deadlock report (ReplayDiagnostics.cpp)
  std::string describe(int r) const;
  void check_deadlock() const;
  void close_phase(Rank& rank); // a collective on every rank (or the trace's end) ends the rank's compute phase

  const TraceIndex& trace_;
  const Platform& platform_;
  const ReplayOptions& options_;
  CpuModel cpu_;
  std::unique_ptr<NetworkModel> net_;
  CompletionHeap timers_;
  std::unique_ptr<TraceSource> source_; // before ranks_: their readers use it
  std::vector<Rank> ranks_;
  ChunkedPool<Exec> execs_; // the first P are the ranks' main contexts
  std::vector<Communicator> comms_;
  std::vector<Split> splits_;
  std::map<std::pair<int, std::uint32_t>, int> split_ids_;
  Mailboxes mailboxes_{0};
  ChunkedPool<Request> requests_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> transfers_;
  std::vector<std::uint32_t> exec_of_cpu_;
  std::deque<std::uint32_t> ready_;
  std::vector<std::uint32_t> scratch_;
  Timeline timeline_; // empty unless record_timeline
  struct PhaseTally {
    double slowest = 0, sum = 0;
    std::uint32_t ranks = 0;
  };
  // per phase index from first_phase_, over the ranks that closed it; a phase every rank closed is folded into
  // phase_totals_ and dropped, so a trace of many collectives keeps only the phases its ranks are apart by
  std::deque<PhaseTally> phases_;
  std::uint32_t first_phase_ = 0;
  ComputePhases phase_totals_;
  double now_ = 0;
  std::uint64_t actions_ = 0;
  int test_sleeps_ = 1;
  // over-decomposed replay; vp_ is null in a plain replay
  const VpOptions* vp_ = nullptr;
  std::vector<Core> cores_;
  VpReport vp_result_;
  int at_balance_ = 0;            // VPs waiting at the balancing step
  int migrations_in_flight_ = 0;
  std::uint32_t balance_timer_ = kNone; // the timer id of a step's CPU phase (an exec slot never run)
  std::vector<std::pair<int, int>> moves_; // (VP, old host) of the step's migrations
};

} // namespace perfcast::replay
