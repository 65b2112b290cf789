#pragma once
// Indexes over the computers that answer the two global placement questions
// (least CPU work per core, most free memory) without visiting every computer
// at each arrival. Both answer exactly what a scan in computer order answers:
// the first computer with the extreme value.
#include <functional>
#include <utility>
#include <vector>

namespace perfcast::sched {

/// Most free memory: a max tournament tree updated per computer.
class FreeMemoryIndex {
public:
  explicit FreeMemoryIndex(std::size_t computers = 0);
  /// Sets a computer's free memory.
  void set(int computer, double free_mb);
  /// The computer with the most free memory, the lowest index among equals.
  int most() const { return tree_.size() > 1 ? tree_[1].second : 0; }

private:
  std::size_t leaves_ = 1;
  std::vector<std::pair<double, int>> tree_; // (free, computer), heap order from 1
};

/// Least CPU work per core. Between its events a computer's work per core is
/// idle + max(0, busy - s (t - since)) with a slope s of at most 1 (a core
/// does at most one second of its own work a second), so idle + max(0,
/// busy + since - t) bounds it from below; subtrees whose bound cannot beat
/// the best value found are skipped, and the rest are evaluated exactly.
class LeastWorkIndex {
public:
  explicit LeastWorkIndex(std::size_t computers = 0);
  /// Records a computer's state after an event at `since`: CPU work per core
  /// of stages not started (`idle`) and of running jobs (`busy`), in seconds.
  void set(int computer, double idle, double busy, double since);
  /// The first computer whose exact work per core (`work_of`) is least at time t.
  int least(double t, const std::function<double(int)>& work_of) const;

private:
  void search(std::size_t node, double t, const std::function<double(int)>& work_of, int& best,
              double& best_work) const;
  std::size_t leaves_ = 1, computers_ = 0;
  std::vector<std::pair<double, double>> tree_; // (least idle, least busy + since), heap order from 1
};

} // namespace perfcast::sched
