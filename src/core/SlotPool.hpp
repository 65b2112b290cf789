#pragma once
// Small integer ids for things that come and go (transfers, executions,
// requests): a released id is handed out again before a new one, so arrays
// indexed by id stay as large as the most alive at once.
#include <cstdint>
#include <vector>

namespace perfcast {

class IdPool {
public:
  /// The latest released id, else the next never used.
  std::uint32_t acquire()
  {
    if (free_.empty())
      return next_++;
    std::uint32_t id = free_.back();
    free_.pop_back();
    return id;
  }
  void release(std::uint32_t id) { free_.push_back(id); }
  /// Ids handed out so far, in use or released.
  std::uint32_t count() const { return next_; }

private:
  std::vector<std::uint32_t> free_;
  std::uint32_t next_ = 0;
};

/// Values in slots named by IdPool ids.
template <class T>
class SlotPool {
public:
  /// A slot holding a fresh T.
  std::uint32_t acquire()
  {
    std::uint32_t id = ids_.acquire();
    if (id == items_.size())
      items_.emplace_back();
    else
      items_[id] = T{};
    return id;
  }
  void release(std::uint32_t id) { ids_.release(id); }
  T& operator[](std::uint32_t id) { return items_[id]; }
  const T& operator[](std::uint32_t id) const { return items_[id]; }
  /// Slots, in use or released.
  std::size_t size() const { return items_.size(); }

private:
  IdPool ids_;
  std::vector<T> items_;
};

} // namespace perfcast
