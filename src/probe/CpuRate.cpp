#include "probe/CpuRate.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace perfcast {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

double mix_chunk(double* x)
{
  for (int i = 0; i < 20000; ++i)
    for (int k = 0; k < 8; ++k)
      x[k] = x[k] * 0.999999 + 1e-7;
  return 2.0 * 20000 * 8;
}

double measure_core_flop_rate(int rounds, double seconds)
{
  double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7};
  double best = 0;
  for (int round = 0; round < rounds; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    double flop = 0;
    while (seconds_since(t0) < seconds)
      flop += mix_chunk(x);
    best = std::max(best, flop / seconds_since(t0));
  }
  volatile double sink = 0;
  for (double v : x)
    sink = sink + v;
  return best;
}

double measure_memcpy_rate(double bytes, int rounds)
{
  std::size_t n = static_cast<std::size_t>(bytes);
  std::vector<char> a(n, 1), b(n, 0);
  double best = 0;
  for (int round = 0; round < rounds; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), n);
    double t = seconds_since(t0);
    a[static_cast<std::size_t>(round) % n] = b[n - 1]; // keep the copy observable
    if (t > 0)
      best = std::max(best, bytes / t);
  }
  return best;
}

} // namespace perfcast
