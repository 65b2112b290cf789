// Contention-free LogGP: a message of S bytes takes L + 2o + S*G whatever else
// is in flight (Alexandrov et al., 1995). L and G default to the route's latency
// and the inverse of its smallest bandwidth.
#include "core/SlotPool.hpp"
#include "net/CompletionHeap.hpp"
#include "net/NetworkModel.hpp"

#include <algorithm>
#include <unordered_map>

namespace perfcast {

namespace {

class LogGpNetwork final : public NetworkModel {
public:
  LogGpNetwork(const Platform& platform, const NetworkOptions& options) : platform_(platform), p_(options.loggp) {}

  std::uint32_t start(int src, int dst, double bytes, double now) override
  {
    std::uint32_t id = ids_.acquire();
    const Cost& c = cost(src, dst);
    heap_.schedule(id, now + c.latency_s + 2 * p_.overhead_s + bytes * c.gap_per_byte_s);
    return id;
  }

  double next_completion() override { return heap_.top_time(); }

  void advance(double t, std::vector<std::uint32_t>& completed) override
  {
    std::uint32_t id;
    while (heap_.pop_until(t, id)) {
      completed.push_back(id);
      ids_.release(id);
    }
  }

  std::string_view name() const override { return "loggp"; }

private:
  struct Cost {
    double latency_s;
    double gap_per_byte_s;
  };
  const Cost& cost(int src, int dst)
  {
    std::uint64_t key = static_cast<std::uint64_t>(src) * platform_.hosts().size() + static_cast<std::uint64_t>(dst);
    auto it = cache_.find(key);
    if (it != cache_.end())
      return it->second;
    Route r = platform_.route(src, dst);
    double min_bw = kNever;
    for (int l : r.links)
      min_bw = std::min(min_bw, platform_.links()[static_cast<std::size_t>(l)].bandwidth_Bps);
    Cost c{p_.latency_s >= 0 ? p_.latency_s : r.latency_s,
           p_.gap_per_byte_s >= 0 ? p_.gap_per_byte_s : (min_bw == kNever ? 0.0 : 1.0 / min_bw)};
    return cache_.emplace(key, c).first->second;
  }

  const Platform& platform_;
  LogGpParams p_;
  CompletionHeap heap_;
  IdPool ids_;
  std::unordered_map<std::uint64_t, Cost> cache_;
};

} // namespace

std::unique_ptr<NetworkModel> make_loggp_network(const Platform& platform, const NetworkOptions& options)
{
  return std::make_unique<LogGpNetwork>(platform, options);
}

} // namespace perfcast
