#pragma once
// The unmatched requests of every receiving rank, matched in posting order as
// MPI requires, and indexed so that a match costs what its candidates cost, not
// what the mailbox holds: a root receiving from a million ranks finds each
// sender's message at once. Requests are chained through their own link fields
// (no allocation per message):
// - per (receiver, sender) pair, its unmatched sends and its receives naming
//   that sender, each in posting order;
// - per receiver, every unmatched send in posting order (for receives from any
//   source) and its receives from any source.
// A send goes to the older of the first receive of its pair that accepts it and
// the first accepting receive from any source; a receive from a given source
// takes the first accepting send of its pair, one from any source the first
// accepting send of all. That is the first accepting request of the receiver's
// posting order, which is what one list per receiver scanned from the front gives.
#include "sim/ChunkedPool.hpp"
#include "sim/ReplayState.hpp"

#include <bit>
#include <cstdint>
#include <vector>

namespace perfcast::replay {

class Mailboxes {
public:
  explicit Mailboxes(std::size_t ranks) : boxes_(ranks) {}

  /// Removes and returns the oldest unmatched send that `recv` accepts, or kNone.
  std::uint32_t take_send(const Request& recv, ChunkedPool<Request>& requests);
  /// Removes and returns the oldest unmatched receive that accepts `send`, or kNone.
  std::uint32_t take_recv(const Request& send, ChunkedPool<Request>& requests);
  /// Queues an unmatched send (to send.dst) or receive (of recv.dst).
  void add(std::uint32_t id, ChunkedPool<Request>& requests);
  /// Removes a queued request (a cancel); false when it is not queued.
  bool remove(std::uint32_t id, ChunkedPool<Request>& requests);
  /// Unmatched sends over all ranks.
  std::uint64_t unmatched_sends() const { return unmatched_sends_; }

private:
  struct List {
    std::uint32_t head = kNone, tail = kNone;
  };
  // a (receiver, sender) pair's unmatched sends and its receives naming that sender
  struct Pair {
    List sends, recvs;
    bool empty() const { return sends.head == kNone && recvs.head == kNone; }
  };
  // A receiver's first pairs sit in its box, so a sweep over the ranks reads the pairs in rank order; more go to a
  // table shared by all boxes (a root that a million ranks send to).
  static constexpr int kInlinePairs = 4;
  struct Box {
    List sends;     // every unmatched send to this rank, linked through box_prev/box_next
    List any_recvs; // its receives from any source, linked through prev/next
    std::int32_t src[kInlinePairs] = {-1, -1, -1, -1}; // -1: a free slot
    Pair pairs[kInlinePairs];
    std::uint32_t in_table = 0; // pairs of this receiver in the table
  };
  // The table: open addressing (linear probing, backward-shift deletion), keyed by (receiver, sender).
  struct Slot {
    std::uint64_t key = kEmpty;
    Pair pair;
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static std::uint64_t pair_key(std::int32_t dst, std::int32_t src)
  {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dst)) << 32) | static_cast<std::uint32_t>(src);
  }
  Pair* find(Box& box, std::int32_t dst, std::int32_t src);
  Pair& find_or_add(Box& box, std::int32_t dst, std::int32_t src);
  void drop_if_empty(Box& box, std::int32_t dst, std::int32_t src, Pair& pair);
  Pair* table_find(std::uint64_t key);
  Pair& table_add(std::uint64_t key);
  void table_erase(std::uint64_t key);
  std::size_t home(std::uint64_t key) const { return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_); }
  void grow();

  void unlink(List& list, std::uint32_t id, ChunkedPool<Request>& requests);
  void unlink_box(List& list, std::uint32_t id, ChunkedPool<Request>& requests);

  std::vector<Box> boxes_;
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
  int shift_ = 64;
  std::uint64_t posted_ = 0; // posting order of receives
  std::uint64_t unmatched_sends_ = 0;
};

} // namespace perfcast::replay
