#pragma once
// Values in slots named by IdPool ids, stored in fixed-size chunks: growing
// never moves or copies the values, and memory follows the most alive at once
// without a vector's doubling (at a million ranks, ten million requests of
// 72 bytes would otherwise be copied at each doubling and kept with up to as
// much again unused).
#include "core/SlotPool.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace perfcast::replay {

template <class T>
class ChunkedPool {
public:
  /// A slot holding a fresh T.
  std::uint32_t acquire()
  {
    std::uint32_t id = ids_.acquire();
    if (id == size_) {
      if ((id >> kShift) == chunks_.size())
        chunks_.push_back(std::make_unique<T[]>(kChunk));
      ++size_;
    } else {
      (*this)[id] = T{};
    }
    return id;
  }
  void release(std::uint32_t id) { ids_.release(id); }
  T& operator[](std::uint32_t id) { return chunks_[id >> kShift][id & (kChunk - 1)]; }
  const T& operator[](std::uint32_t id) const { return chunks_[id >> kShift][id & (kChunk - 1)]; }
  /// Slots, in use or released.
  std::size_t size() const { return size_; }

private:
  static constexpr int kShift = 14;
  static constexpr std::size_t kChunk = std::size_t{1} << kShift;
  IdPool ids_;
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::uint32_t size_ = 0;
};

} // namespace perfcast::replay
