#include "sched/LoadIndex.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfcast::sched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::size_t leaves_for(std::size_t n)
{
  std::size_t l = 1;
  while (l < n)
    l *= 2;
  return l;
}

} // namespace

FreeMemoryIndex::FreeMemoryIndex(std::size_t computers)
    : leaves_(leaves_for(computers)), tree_(2 * leaves_, {-kInf, std::numeric_limits<int>::max()})
{
}

void FreeMemoryIndex::set(int computer, double free_mb)
{
  std::size_t i = leaves_ + static_cast<std::size_t>(computer);
  tree_[i] = {free_mb, computer};
  for (i /= 2; i >= 1; i /= 2) {
    const auto& a = tree_[2 * i];
    const auto& b = tree_[2 * i + 1];
    // more free memory wins; equal: the lower index (the left child)
    tree_[i] = b.first > a.first ? b : a;
  }
}

LeastWorkIndex::LeastWorkIndex(std::size_t computers)
    : leaves_(leaves_for(computers)), computers_(computers), tree_(2 * leaves_, {kInf, kInf})
{
}

void LeastWorkIndex::set(int computer, double idle, double busy, double since)
{
  std::size_t i = leaves_ + static_cast<std::size_t>(computer);
  tree_[i] = {idle, busy + since};
  for (i /= 2; i >= 1; i /= 2)
    tree_[i] = {std::min(tree_[2 * i].first, tree_[2 * i + 1].first),
                std::min(tree_[2 * i].second, tree_[2 * i + 1].second)};
}

int LeastWorkIndex::least(double t, const std::function<double(int)>& work_of) const
{
  int best = 0;
  double best_work = work_of(0);
  search(1, t, work_of, best, best_work);
  return best;
}

void LeastWorkIndex::search(std::size_t node, double t, const std::function<double(int)>& work_of, int& best,
                            double& best_work) const
{
  if (best_work <= 0)
    return; // nothing beats an idle computer met first
  // the bound is rounded like the exact value: a margin keeps it a bound
  double bound = tree_[node].first + std::max(0.0, tree_[node].second - t);
  if (bound > best_work + 1e-9 * (1 + std::abs(best_work) + t))
    return;
  if (node >= leaves_) {
    int c = static_cast<int>(node - leaves_);
    if (static_cast<std::size_t>(c) >= computers_ || c == 0)
      return;
    double w = work_of(c);
    if (w < best_work || (w == best_work && c < best)) {
      best = c;
      best_work = w;
    }
    return;
  }
  search(2 * node, t, work_of, best, best_work);
  search(2 * node + 1, t, work_of, best, best_work);
}

} // namespace perfcast::sched
