#include "phase/PhaseFinder.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

namespace perfcast::phase {
namespace {

/// The largest phase set the search looks at to say what option would reach the threshold (the CLI's limit).
constexpr int kMostPhases = 8;

bool is_mpi(const std::string& name) {
  return name.rfind("MPI_", 0) == 0 || name.rfind("PMPI_", 0) == 0 || name.rfind("mpi_", 0) == 0 ||
         name.rfind("pmpi_", 0) == 0;
}

/// The symbolizer's names for code it could not name ("[hpcc]" for a
/// stripped binary, "[unknown]", "[MPI internals]"): each lumps many
/// functions, so it is no phase, and its nesting says nothing.
bool is_unnamed(const std::string& name) { return !name.empty() && name.front() == '['; }

/// MPI's own code: its entry points and its stripped internals.
bool is_mpi_frame(const std::string& name) { return is_mpi(name) || name == "[MPI internals]"; }

/// A name without its symbol version ("__libc_start_main@@GLIBC_2.34").
std::string unversioned(const std::string& name) { return name.substr(0, name.find('@')); }

/// The C runtime's frames above main on every stack of the process: the program, never a phase.
bool is_process_entry(const std::string& name) {
  const std::string n = unversioned(name);
  return n == "_start" || n == "__libc_start_call_main" || n.rfind("__libc_start_main", 0) == 0 ||
         n == "_dl_start" || n == "_dl_start_user";
}

/// Entry frames of threads (glibc's and the kernel's), also never a phase.
bool is_thread_entry(const std::string& name) {
  const std::string n = unversioned(name);
  return n == "start_thread" || n == "clone" || n == "clone3" || n == "__clone" || n == "__clone3";
}

/// Per function, the weight of the samples that hold it outside MPI, i.e.
/// above (callers' side of) the outermost MPI frame of the stack. A function
/// with none is code MPI calls (a libc futex wait or process_vm_readv under
/// Open MPI's shared-memory transport): communication, not a phase.
std::vector<double> outside_mpi(const std::vector<std::string>& names, const std::vector<StackSample>& samples) {
  std::vector<double> w(names.size(), 0);
  std::vector<char> seen(names.size(), 0);
  for (const StackSample& s : samples) {
    std::size_t i = 0;
    for (; i < s.frames.size() && !is_mpi_frame(names[s.frames[i]]); ++i)
      if (!seen[s.frames[i]]) {
        w[s.frames[i]] += s.weight;
        seen[s.frames[i]] = 1;
      }
    for (std::size_t k = 0; k < i; ++k) seen[s.frames[k]] = 0;
  }
  return w;
}

struct Totals {
  std::vector<double> inclusive, exclusive; // weights, by function id
  double total = 0;
};

Totals add_up(std::size_t functions, const std::vector<StackSample>& samples) {
  Totals t;
  t.inclusive.assign(functions, 0);
  t.exclusive.assign(functions, 0);
  std::vector<char> seen(functions, 0);
  for (const StackSample& s : samples) {
    if (!(std::isfinite(s.weight) && s.weight >= 0))
      throw Error(fmt::format("a sample of weight {} (expected a weight >= 0)", s.weight));
    t.total += s.weight;
    for (int f : s.frames) {
      if (f < 0 || static_cast<std::size_t>(f) >= functions)
        throw Error(fmt::format("a sample names function {} of {} (expected an id below the count)", f, functions));
      if (!seen[f]) t.inclusive[f] += s.weight;
      seen[f] = 1;
    }
    if (!s.frames.empty()) t.exclusive[s.frames.back()] += s.weight;
    for (int f : s.frames) seen[f] = 0;
  }
  return t;
}

} // namespace

std::vector<FunctionShare> function_shares(const std::vector<std::string>& names,
                                           const std::vector<StackSample>& samples) {
  const Totals t = add_up(names.size(), samples);
  std::vector<FunctionShare> out;
  for (std::size_t f = 0; f < names.size(); ++f)
    out.push_back({names[f], t.total > 0 ? t.inclusive[f] / t.total : 0, t.total > 0 ? t.exclusive[f] / t.total : 0});
  std::stable_sort(out.begin(), out.end(), [](const FunctionShare& a, const FunctionShare& b) {
    return a.inclusive != b.inclusive ? a.inclusive > b.inclusive : a.name < b.name;
  });
  return out;
}

PhaseSet find_phases(const std::vector<std::string>& names, const std::vector<StackSample>& samples,
                     const PhaseRule& rule) {
  if (!(rule.threshold > 0 && rule.threshold <= 1))
    throw Error(fmt::format("phase threshold {} (expected a share in (0, 1])", rule.threshold));
  const Totals t = add_up(names.size(), samples);
  if (!(t.total > 0)) throw Error("the profile has no samples (expected a run long enough to be sampled)");

  // The program's entry: the C runtime's frames above main, thread entry
  // frames, and Fortran's main (the runtime's, which calls the program unit
  // MAIN__). They are on every complete stack: the program, never a phase.
  std::vector<char> entry(names.size(), 0);
  for (std::size_t f = 0; f < names.size(); ++f) entry[f] = is_process_entry(names[f]) || is_thread_entry(names[f]);
  for (const StackSample& s : samples)
    for (std::size_t i = 0; i + 1 < s.frames.size(); ++i)
      if (names[s.frames[i]] == "main" && unversioned(names[s.frames[i + 1]]) == "MAIN__") entry[s.frames[i]] = 1;
  // The spine is judged on the stacks that reach the process's entry
  // (_start, __libc_start_main): a stack whose unwinding stopped short (code
  // without unwind information, such as OpenBLAS's assembly kernels, 12% of
  // hpcc's samples at N = 4000) cannot say whether main is above it, so it
  // would take main below the spine share. Such stacks still count in the
  // run, and no phase can hold them. Profiles without the C runtime's
  // frames (synthetic ones) judge the spine on every stack.
  std::vector<StackSample> rooted;
  for (const StackSample& s : samples)
    if (std::any_of(s.frames.begin(), s.frames.end(), [&](int f) { return is_process_entry(names[f]); }))
      rooted.push_back(s);
  const Totals spine = rooted.empty() ? t : add_up(names.size(), rooted);

  // Candidates: the program's named functions above min_share, the run's
  // entry and spine and the code only MPI calls left out.
  const std::vector<double> outside = outside_mpi(names, samples);
  std::vector<int> cand;
  for (std::size_t f = 0; f < names.size(); ++f) {
    const double share = t.inclusive[f] / t.total;
    const double through_callees = spine.total > 0 ? (spine.inclusive[f] - spine.exclusive[f]) / spine.total : 0;
    if (share >= rule.min_share && through_callees < rule.spine_share && !entry[f] && !is_mpi(names[f]) &&
        !is_unnamed(names[f]) && outside[f] > 0)
      cand.push_back(static_cast<int>(f));
  }
  std::stable_sort(cand.begin(), cand.end(), [&](int a, int b) {
    return t.inclusive[a] != t.inclusive[b] ? t.inclusive[a] > t.inclusive[b] : names[a] < names[b];
  });
  if (cand.size() > static_cast<std::size_t>(rule.max_candidates)) cand.resize(rule.max_candidates);

  // Nesting: candidates that share a sample.
  const std::size_t n = cand.size();
  std::vector<int> slot(names.size(), -1);
  for (std::size_t i = 0; i < n; ++i) slot[cand[i]] = static_cast<int>(i);
  std::vector<std::vector<char>> nested(n, std::vector<char>(n, 0));
  for (const StackSample& s : samples) {
    std::set<int> here;
    for (int f : s.frames)
      if (slot[f] >= 0) here.insert(slot[f]);
    for (int a : here)
      for (int b : here)
        if (a != b) nested[a][b] = 1;
  }

  // Fewest functions first; among equals the tightest coverage, then names.
  std::vector<int> best, pick, widest_set;
  double best_cover = 0, widest = 0;
  auto names_of = [&](const std::vector<int>& set) {
    std::vector<std::string> v;
    for (int i : set) v.push_back(names[cand[i]]);
    return v;
  };
  const int most = std::max(rule.max_phases, kMostPhases); // beyond max_phases only to say what would reach
  int reached_at = 0;
  for (int k = 1; k <= most && best.empty(); ++k) {
    // Depth-first over increasing indices, pruning nested pairs.
    auto search = [&](auto& self, std::size_t from, double cover) -> void {
      if (static_cast<int>(pick.size()) == k) {
        if (k <= rule.max_phases && cover > widest + 1e-12) {
          widest = cover;
          widest_set = pick;
        }
        if (cover + 1e-12 < rule.threshold) return;
        if (best.empty() || cover < best_cover - 1e-12 ||
            (std::abs(cover - best_cover) <= 1e-12 && names_of(pick) < names_of(best))) {
          best = pick;
          best_cover = cover;
        }
        return;
      }
      for (std::size_t i = from; i < n; ++i) {
        bool ok = true;
        for (int j : pick) ok = ok && !nested[i][j];
        if (!ok) continue;
        pick.push_back(static_cast<int>(i));
        self(self, i + 1, cover + t.inclusive[cand[i]] / t.total);
        pick.pop_back();
      }
    };
    search(search, 0, 0.0);
    if (!best.empty()) reached_at = k;
  }
  if (best.empty() || reached_at > rule.max_phases) {
    // No fallback to a frame of the program's entry or spine: the threshold is
    // the share the user asked the phases to hold (docs/phases.md).
    std::vector<std::string> parts;
    for (int i : widest_set) parts.push_back(fmt::format("{} {:.1f}%", names[cand[i]], 100 * t.inclusive[cand[i]] / t.total));
    std::string stop_short;
    if (!rooted.empty() && spine.total < t.total) {
      std::map<std::string, double> outermost; // of the stacks that stop short of the entry
      for (const StackSample& s : samples)
        if (!s.frames.empty() &&
            std::none_of(s.frames.begin(), s.frames.end(), [&](int f) { return is_process_entry(names[f]); }))
          outermost[names[s.frames.front()]] += s.weight;
      std::vector<std::pair<std::string, double>> top(outermost.begin(), outermost.end());
      std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      std::vector<std::string> first;
      for (std::size_t i = 0; i < top.size() && i < 3; ++i)
        first.push_back(fmt::format("{} {:.1f}%", top[i].first, 100 * top[i].second / t.total));
      stop_short = fmt::format("; {:.1f}% of the samples' stacks stop short of the program's entry (outermost "
                               "frame {}: the unwinder stopped there), so no function above those frames holds them",
                               100 * (t.total - spine.total) / t.total, fmt::join(first, ", "));
    }
    const std::string help =
        reached_at > rule.max_phases
            ? fmt::format("--max-phases {} would reach it", reached_at)
            : fmt::format("no set of up to {} functions reaches it; --threshold {:.2f} would take the best set",
                          most, std::floor(100 * widest) / 100);
    throw Error(fmt::format("no set of at most {} functions, none nested in another, holds {:.0f}% of the run: the "
                            "best holds {:.1f}% ({}){}; {}",
                            rule.max_phases, 100 * rule.threshold, 100 * widest,
                            parts.empty() ? "no candidate function" : fmt::format("{}", fmt::join(parts, ", ")),
                            stop_short, help));
  }
  PhaseSet out;
  for (int i : best) {
    out.phases.push_back(names[cand[i]]);
    out.shares.push_back(t.inclusive[cand[i]] / t.total);
  }
  out.coverage = best_cover;
  return out;
}

} // namespace perfcast::phase
