#include "unimpp/UniMpp.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace perfcast::unimpp {

double MemorySlowdown::alpha(double x_mb, double main_mb) const
{
  double a = x_mb <= main_mb ? linear_slope * x_mb + linear_intercept : exp_scale * std::exp(exp_rate * x_mb);
  return std::max(0.0, a);
}

double message_time(const Computer& c) { return 2 * c.message_overhead_s + c.message_latency_s; }

double migration_time(double memory_mb, double bytes_per_s, double latency_s)
{
  return (bytes_per_s > 0 ? memory_mb * 1e6 / bytes_per_s : 0.0) + latency_s;
}

ResponseTime response_time(const Computer& c, const ProcessStay& stay)
{
  ResponseTime t;
  t.processing_s = stay.instructions / c.instructions_per_s;
  t.memory_delay_s = t.processing_s * c.slowdown.alpha(stay.memory_in_use_mb, c.main_memory_mb);
  for (const Access& r : stay.reads)
    t.disk_read_s += r.bytes / c.disk_read_bytes_per_s + r.waited_s;
  for (const Access& w : stay.writes)
    t.disk_write_s += w.bytes / c.disk_write_bytes_per_s + w.waited_s;
  for (const Access& m : stay.messages)
    t.messages_s += message_time(c) + m.waited_s;
  t.sleep_s = stay.sleep_s;
  return t;
}

ResponseTime response_time(const std::vector<Computer>& computers, const std::vector<ProcessStay>& stays)
{
  if (computers.size() != stays.size())
    throw std::invalid_argument("unimpp: one stay per computer visited");
  ResponseTime sum;
  for (std::size_t k = 0; k < stays.size(); ++k) {
    ResponseTime t = response_time(computers[k], stays[k]);
    sum.processing_s += t.processing_s;
    sum.memory_delay_s += t.memory_delay_s;
    sum.disk_read_s += t.disk_read_s;
    sum.disk_write_s += t.disk_write_s;
    sum.messages_s += t.messages_s;
    sum.sleep_s += t.sleep_s;
  }
  return sum;
}

} // namespace perfcast::unimpp
