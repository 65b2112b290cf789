#pragma once
// A min-heap of (time, id) events where an id's event can be superseded: each
// push carries the id's current version and stale entries are skipped.
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

namespace perfcast {

class CompletionHeap {
public:
  /// Schedules id at time t, superseding any earlier schedule of id.
  void schedule(std::uint32_t id, double t)
  {
    if (id >= version_.size())
      version_.resize(id + 1, 0);
    heap_.push({t, seq_++, id, ++version_[id]});
  }
  /// Cancels id's pending event.
  void cancel(std::uint32_t id)
  {
    if (id < version_.size())
      ++version_[id];
  }
  /// Earliest live event time, or +inf.
  double top_time()
  {
    drop_stale();
    return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.top().time;
  }
  /// Pops the earliest live event if it is at or before t.
  bool pop_until(double t, std::uint32_t& id)
  {
    drop_stale();
    if (heap_.empty() || heap_.top().time > t)
      return false;
    id = heap_.top().id;
    ++version_[id];
    heap_.pop();
    return true;
  }

private:
  struct Entry {
    double time;
    std::uint64_t seq;
    std::uint32_t id;
    std::uint32_t version;
    bool operator>(const Entry& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  void drop_stale()
  {
    while (!heap_.empty() && heap_.top().version != version_[heap_.top().id])
      heap_.pop();
  }
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
  std::vector<std::uint32_t> version_;
  std::uint64_t seq_ = 0;
};

} // namespace perfcast
