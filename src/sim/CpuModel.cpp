#include "sim/CpuModel.hpp"

#include <algorithm>

namespace perfcast {

CpuModel::CpuModel(const Platform& platform)
    : platform_(platform), running_(platform.hosts().size()), touched_stamp_(platform.hosts().size(), 0)
{
}

std::uint32_t CpuModel::start(int host, double flops, double now)
{
  std::uint32_t id = execs_.acquire();
  execs_[id] = Exec{host, flops, 0, now};
  reshare(host, now); // settles the others' progress before adding this one
  running_[static_cast<std::size_t>(host)].push_back(id);
  reshare(host, now);
  return id;
}

void CpuModel::reshare(int host, double now)
{
  auto& run = running_[static_cast<std::size_t>(host)];
  const Host& h = platform_.hosts()[static_cast<std::size_t>(host)];
  double n = static_cast<double>(run.size());
  double rate = n <= h.cores ? h.speed_flops : h.speed_flops * h.cores / n;
  for (std::uint32_t id : run) {
    Exec& e = execs_[id];
    e.remaining = std::max(0.0, e.remaining - e.rate * (now - e.last_update));
    e.last_update = now;
    if (e.rate != rate || e.remaining == 0) {
      e.rate = rate;
      heap_.schedule(id, now + e.remaining / rate);
    }
  }
}

void CpuModel::advance(double t, std::vector<std::uint32_t>& completed)
{
  std::uint32_t id;
  // the hosts whose executions ended, in the order of their first ending (one stamp per host: at a million
  // ranks in lockstep, every host's executions end at once)
  touched_.clear();
  ++stamp_;
  while (heap_.pop_until(t, id)) {
    int host = execs_[id].host;
    auto& run = running_[static_cast<std::size_t>(host)];
    run.erase(std::find(run.begin(), run.end(), id));
    execs_.release(id);
    completed.push_back(id);
    if (touched_stamp_[static_cast<std::size_t>(host)] != stamp_) {
      touched_stamp_[static_cast<std::size_t>(host)] = stamp_;
      touched_.push_back(host);
    }
  }
  for (int host : touched_)
    reshare(host, t);
}

} // namespace perfcast
