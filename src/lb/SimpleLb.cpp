// The two balancers that ignore loads: RotateLB.C and RandCentLB.C of
// Charm++ 6.x (commit 57ea1f2), which also handle unavailable PEs; 7.x's
// Rotate and Random (TreeStrategyBase.h, commit 2ff9e15) do the same on
// available PEs only. Non-migratable objects stay in both.
#include "lb/Strategies.hpp"

#include <random>

namespace perfcast::lb::detail {

std::vector<int> rotate(const LbProblem& problem)
{
  // RotateLB::work: the next PE in id order, wrapping around, skipping
  // unavailable ones; an object whose only candidate is its own PE stays
  std::vector<int> map = current_mapping(problem);
  int n = static_cast<int>(problem.pes.size());
  for (std::size_t o = 0; o < map.size(); ++o) {
    if (!problem.objects[o].migratable)
      continue;
    int from = problem.objects[o].pe;
    int to = (from + 1) % n;
    while (!problem.pes[to].available && to != from)
      to = (to + 1) % n;
    map[o] = to;
  }
  return map;
}

std::vector<int> random(const LbProblem& problem, std::uint64_t seed)
{
  // RandCentLB::work draws a PE uniformly until it draws an available one;
  // perfcast draws uniformly among the available PEs directly (the same
  // distribution) from a seeded 64-bit Mersenne Twister, in object id order.
  // The reduction to [0, n) is done here, not by std::uniform_int_distribution,
  // whose algorithm differs between standard libraries.
  std::vector<int> available;
  for (std::size_t p = 0; p < problem.pes.size(); ++p)
    if (problem.pes[p].available)
      available.push_back(static_cast<int>(p));
  std::mt19937_64 rng(seed);
  const std::uint64_t n = available.size();
  const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % n;
  std::vector<int> map = current_mapping(problem);
  for (std::size_t o = 0; o < map.size(); ++o) {
    if (!problem.objects[o].migratable)
      continue;
    std::uint64_t draw = rng();
    while (draw >= limit)
      draw = rng();
    map[o] = available[draw % n];
  }
  return map;
}

} // namespace perfcast::lb::detail
