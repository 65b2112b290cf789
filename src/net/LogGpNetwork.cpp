// Contention-free LogGP: a message of S bytes takes L + 2o + S*G whatever else
// is in flight (Alexandrov et al., 1995). L and G default to the route's latency
// and the inverse of its smallest bandwidth.
#include "core/SlotPool.hpp"
#include "net/NetworkModel.hpp"

#include <algorithm>
#include <bit>
#include <deque>
#include <unordered_map>
#include <utility>

namespace perfcast {

namespace {

// Transfers end in (time, start order), as one heap of all of them would give, through one FIFO per
// duration: a transfer ends at ((now + L) + 2o) + S*G, which for given L and S*G never decreases as now
// grows, so each FIFO is already in that order and only the FIFOs' heads need a heap. A million ranks in
// lockstep keep millions of transfers in flight over a handful of durations.
class LogGpNetwork final : public NetworkModel {
public:
  LogGpNetwork(const Platform& platform, const NetworkOptions& options)
      : platform_(platform), p_(options.loggp), near_(platform.hosts().size())
  {
  }

  std::uint32_t start(int src, int dst, double bytes, double now) override
  {
    std::uint32_t id = ids_.acquire();
    const Cost& c = cost(src, dst);
    double per_bytes = bytes * c.gap_per_byte_s;
    Fifo& f = fifo(c.latency_s, per_bytes);
    Event e{now + c.latency_s + 2 * p_.overhead_s + per_bytes, seq_++, id};
    f.events.push_back(e);
    if (f.events.size() == 1)
      push_head(static_cast<std::uint32_t>(&f - fifos_.data()));
    return id;
  }

  double next_completion() override { return heads_.empty() ? kNever : fifos_[heads_.front()].events.front().time; }

  void advance(double t, std::vector<std::uint32_t>& completed) override
  {
    while (!heads_.empty()) {
      std::uint32_t k = heads_.front();
      Fifo& f = fifos_[k];
      if (f.events.front().time > t)
        break;
      std::pop_heap(heads_.begin(), heads_.end(), later_);
      heads_.pop_back();
      std::uint32_t id = f.events.front().id;
      f.events.pop_front();
      completed.push_back(id);
      ids_.release(id);
      if (!f.events.empty())
        push_head(k);
    }
  }

  std::string_view name() const override { return "loggp"; }

private:
  struct Cost {
    double latency_s;
    double gap_per_byte_s;
  };
  struct Event {
    double time;
    std::uint64_t seq;
    std::uint32_t id;
  };
  struct Fifo {
    std::uint64_t latency_bits, per_bytes_bits;
    std::deque<Event> events;
  };
  // the FIFO heads' order: a heap with the earliest (time, seq) in front
  struct Later {
    const std::vector<Fifo>* fifos;
    bool operator()(std::uint32_t a, std::uint32_t b) const
    {
      const Event& x = (*fifos)[a].events.front();
      const Event& y = (*fifos)[b].events.front();
      return x.time != y.time ? x.time > y.time : x.seq > y.seq;
    }
  };
  void push_head(std::uint32_t k)
  {
    heads_.push_back(k);
    std::push_heap(heads_.begin(), heads_.end(), later_);
  }
  Fifo& fifo(double latency_s, double per_bytes)
  {
    std::uint64_t a = std::bit_cast<std::uint64_t>(latency_s), b = std::bit_cast<std::uint64_t>(per_bytes);
    if (last_fifo_ < fifos_.size() && fifos_[last_fifo_].latency_bits == a && fifos_[last_fifo_].per_bytes_bits == b)
      return fifos_[last_fifo_];
    auto [it, added] = fifo_of_.emplace(std::make_pair(a, b), static_cast<std::uint32_t>(fifos_.size()));
    if (added)
      fifos_.push_back(Fifo{a, b, {}});
    last_fifo_ = it->second;
    return fifos_[it->second];
  }
  struct PairHash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& k) const
    {
      return std::hash<std::uint64_t>{}(k.first * 0x9e3779b97f4a7c15ull ^ k.second);
    }
  };

  // A host's latest destinations are kept beside it: a rank talks to few hosts, and the ranks run in order,
  // so the cost of a message rarely needs the table of every pair.
  static constexpr int kNear = 4;
  struct Near {
    int dst[kNear] = {-1, -1, -1, -1};
    const Cost* cost[kNear] = {};
    int next = 0;
  };
  const Cost& cost(int src, int dst)
  {
    Near& n = near_[static_cast<std::size_t>(src)];
    for (int i = 0; i < kNear; ++i)
      if (n.dst[i] == dst)
        return *n.cost[i];
    const Cost& c = far_cost(src, dst);
    n.dst[n.next] = dst;
    n.cost[n.next] = &c;
    n.next = (n.next + 1) % kNear;
    return c;
  }
  const Cost& far_cost(int src, int dst)
  {
    std::uint64_t key = static_cast<std::uint64_t>(src) * platform_.hosts().size() + static_cast<std::uint64_t>(dst);
    auto it = cache_.find(key);
    if (it != cache_.end())
      return it->second;
    Route r = platform_.route(src, dst);
    double min_bw = platform_.narrowest_bandwidth(r);
    Cost c{p_.latency_s >= 0 ? p_.latency_s : r.latency_s,
           p_.gap_per_byte_s >= 0 ? p_.gap_per_byte_s : (min_bw > 0 ? 1.0 / min_bw : 0.0)};
    return cache_.emplace(key, c).first->second;
  }

  const Platform& platform_;
  LogGpParams p_;
  IdPool ids_;
  std::uint64_t seq_ = 0;
  std::vector<Fifo> fifos_;
  std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t, PairHash> fifo_of_;
  std::size_t last_fifo_ = static_cast<std::size_t>(-1);
  std::vector<std::uint32_t> heads_;
  Later later_{&fifos_};
  std::unordered_map<std::uint64_t, Cost> cache_; // node-based: the pointers in near_ stay valid
  std::vector<Near> near_;
};

} // namespace

std::unique_ptr<NetworkModel> make_loggp_network(const Platform& platform, const NetworkOptions& options)
{
  return std::make_unique<LogGpNetwork>(platform, options);
}

} // namespace perfcast
