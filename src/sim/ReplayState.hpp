#pragma once
// The replay engine's state: requests, execution contexts, ranks,
// communicators and the per-rank mailboxes that match sends with receives.
#include "core/SlotPool.hpp"
#include "sim/MicroOp.hpp"
#include "sim/Replay.hpp"
#include "trace/Action.hpp"
#include "trace/TraceReader.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace perfcast::replay {

constexpr std::uint32_t kNone = 0xffffffffu;

// A point-to-point request, or (is_collective) the request of a non-blocking
// collective, completed when its background schedule ends.
struct Request {
  std::uint32_t owner = 0; // execution context that posted it
  std::int32_t owner_rank = 0;
  std::int32_t src = 0, dst = 0, tag = 0; // world ranks; src may be kAnySource, tag kAnyTag
  std::uint16_t ctx = 0;
  bool is_send = false;
  bool is_collective = false;
  bool wildcard_source = false;
  bool complete = false;
  bool waited = false; // owner is blocked on it
  std::uint8_t refs = 0;
  std::uint64_t bytes = 0;
  double match_time = -1;
  // while unmatched (Mailboxes): neighbours in its pair's or any-source list, in
  // its receiver's list of sends, and a receive's posting order
  std::uint32_t prev = kNone, next = kNone;
  std::uint32_t box_prev = kNone, box_next = kNone;
  std::uint64_t posted = 0;
};

// An entry of a rank's trace-level request list, keyed as the trace's wait
// lines name it; req == kNone is SimGrid's "null request" left by a test.
struct Pending {
  std::int32_t src, dst, tag, comm;
  std::uint32_t req;
};

enum class Status : std::uint8_t { Ready, Blocked, Computing, Sleeping, Done };

// A thread of execution: a rank's main flow of actions, or the background
// schedule of one of its non-blocking collectives.
struct Exec {
  int rank = 0;
  bool background = false;
  std::uint32_t collective_request = kNone; // background: completed at the end
  std::vector<MicroOp> ops;
  std::size_t next_op = 0;
  Status status = Status::Ready;
  std::vector<std::uint32_t> group;   // requests of the running collective
  std::vector<std::uint32_t> waiting; // requests it is blocked on
  std::uint32_t blocked_on = 0;
  bool wait_any = false; // blocked until any one of `waiting` completes
  double block_start = 0;
  double last_match = -1;
};

struct Communicator {
  std::vector<int> members; // world rank of each local rank
  std::uint16_t p2p_ctx = 0, coll_ctx = 1;
};

struct Rank {
  int host = 0;
  std::unique_ptr<ActionStream> reader;
  Action action;
  bool has_action = false;
  bool finishing = false;
  std::vector<Pending> pending;
  // Communicators other than the world; comm_index and local_rank answer for the world without them, so that a
  // rank of a trace that never splits allocates nothing here.
  std::map<int, int> handles;             // communicator handle (> 0) -> communicator
  std::uint32_t world_coll_seq = 0;       // collectives started on the world
  std::map<int, std::uint32_t> coll_seq;  // collectives started per other communicator
  std::map<int, std::uint32_t> split_seq; // comm_split/dup calls per parent communicator
  std::vector<int> local_rank;            // per communicator, -1 when not a member (entry 0 unused)
  // perfcast extensions: replies to wildcard sources and loop blocks
  std::int32_t last_wild_source = -1;
  std::int32_t last_recv_tag = -1;
  std::vector<Action> loop_body;
  std::size_t loop_pos = 0;
  std::int32_t loop_stop_tag = 0;
  bool in_loop = false;
  bool loop_stop = false;
  Pending test_entry{};
  RankReport report;
  // the report's counters of the latest destinations and size classes (map nodes never move), so that a
  // message rarely walks the report's maps
  struct PartnerCounters {
    std::int32_t peer = -1, size_class = -1;
    RankReport::Traffic* partner = nullptr; // report.partners[peer]
    RankReport::Traffic* pair = nullptr;    // report.partner_sizes[peer][size_class]
  };
  static constexpr int kPartnerCounters = 4;
  PartnerCounters partner_counters[kPartnerCounters];
  std::uint8_t partner_counters_next = 0;
  std::int32_t size_counter_class = -1;
  RankReport::Traffic* size_counter = nullptr; // report.sizes[size_counter_class]
  double phase_flops = 0;           // computed since the rank's latest collective on every rank
  std::uint32_t phases_closed = 0;  // such collectives reached, and the trace's end
  // over-decomposed replay: the rank is a VP on a core
  int core = -1;
  std::uint32_t migration_points = 0; // migrate actions reached
  std::uint64_t migrate_bytes = 0;    // payload of the latest migrate action
  double compute_at_iteration = 0;    // report.compute_s at the latest migration point
  double compute_at_step = 0;         // report.compute_s at the latest balancing step
  double unpaid_receive_s = 0;        // message CPU of non-blocking receives, charged after the next wait
};

// A core of an over-decomposed replay: the VP running on it and those waiting for it.
struct Core {
  int host = 0;
  std::uint32_t running = kNone;
  std::deque<std::uint32_t> waiting; // ready VPs, first come first served
};

// One collective communicator creation: every member's color and key.
struct Split {
  std::vector<std::tuple<int, int, int>> entries; // color, key, world rank
  bool built = false;
  std::map<int, int> comm_of_color;
};

/// True when a receive accepts a send (context, source or wildcard, tag or wildcard).
inline bool matches(const Request& recv, const Request& send)
{
  return recv.ctx == send.ctx && (recv.src == kAnySource || recv.src == send.src) &&
         (recv.tag == kAnyTag ? send.tag >= 0 : recv.tag == send.tag);
}

} // namespace perfcast::replay
