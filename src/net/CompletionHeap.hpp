#pragma once
// A min-heap of (time, id) events with at most one event per id: scheduling an
// id again moves its event. Ties on time are broken by
// the order of scheduling, so runs are deterministic.
#include <cstdint>
#include <limits>
#include <vector>

namespace perfcast {

class CompletionHeap {
public:
  /// Schedules id at time t, replacing any earlier schedule of id.
  void schedule(std::uint32_t id, double t)
  {
    if (id >= pos_.size())
      pos_.resize(id + 1, kAbsent);
    Entry e{t, seq_++, id};
    std::size_t i = pos_[id];
    if (i == kAbsent) {
      i = heap_.size();
      heap_.push_back(e);
      pos_[id] = i;
      sift_up(i);
      return;
    }
    bool earlier = before(e, heap_[i]);
    heap_[i] = e;
    if (earlier)
      sift_up(i);
    else
      sift_down(i);
  }
  /// Earliest event time, or +inf.
  double top_time() const { return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_[0].time; }
  bool empty() const { return heap_.empty(); }
  /// The id of the earliest event; the heap must not be empty.
  std::uint32_t top_id() const { return heap_[0].id; }
  /// Drops id's event, if it has one.
  void remove(std::uint32_t id)
  {
    if (id < pos_.size() && pos_[id] != kAbsent)
      remove_at(pos_[id]);
  }
  /// Pops the earliest event if it is at or before t.
  bool pop_until(double t, std::uint32_t& id)
  {
    if (heap_.empty() || heap_[0].time > t)
      return false;
    id = heap_[0].id;
    remove_at(0);
    return true;
  }

private:
  static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
  struct Entry {
    double time;
    std::uint64_t seq;
    std::uint32_t id;
  };
  static bool before(const Entry& a, const Entry& b) { return a.time != b.time ? a.time < b.time : a.seq < b.seq; }
  void place(std::size_t i, const Entry& e)
  {
    heap_[i] = e;
    pos_[e.id] = i;
  }
  void sift_up(std::size_t i)
  {
    Entry e = heap_[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent]))
        break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, e);
  }
  void sift_down(std::size_t i)
  {
    Entry e = heap_[i];
    std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n)
        break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child]))
        ++child;
      if (!before(heap_[child], e))
        break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, e);
  }
  void remove_at(std::size_t i)
  {
    pos_[heap_[i].id] = kAbsent;
    Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size())
      return;
    heap_[i] = last;
    pos_[last.id] = i;
    sift_up(i);
    sift_down(pos_[last.id]);
  }

  std::vector<Entry> heap_;
  std::vector<std::size_t> pos_;
  std::uint64_t seq_ = 0;
};

} // namespace perfcast
