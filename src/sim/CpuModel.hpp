#pragma once
// Hosts' processors (SimGrid's Cas01 model): the executions running on a host
// share speed x cores fairly, each using at most one core.
#include "core/SlotPool.hpp"
#include "net/CompletionHeap.hpp"
#include "platform/Platform.hpp"

#include <cstdint>
#include <vector>

namespace perfcast {

class CpuModel {
public:
  explicit CpuModel(const Platform& platform);
  /// Starts executing `flops` on a host at time now; returns the execution's id.
  std::uint32_t start(int host, double flops, double now);
  /// Time the next execution ends, or +inf.
  double next_completion() { return heap_.top_time(); }
  /// Advances to t and appends the executions ending at t.
  void advance(double t, std::vector<std::uint32_t>& completed);

private:
  struct Exec {
    int host = 0;
    double remaining = 0;
    double rate = 0;
    double last_update = 0;
  };
  void reshare(int host, double now);

  const Platform& platform_;
  SlotPool<Exec> execs_;
  std::vector<std::vector<std::uint32_t>> running_; // per host
  CompletionHeap heap_;
  std::vector<int> touched_;                 // hosts whose executions end in advance()
  std::vector<std::uint64_t> touched_stamp_; // per host: the advance() that last touched it
  std::uint64_t stamp_ = 0;
};

} // namespace perfcast
