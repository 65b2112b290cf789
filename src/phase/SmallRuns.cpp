#include "phase/SmallRuns.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace perfcast::phase {

double SizeLadder::at(int i) const {
  if (!(factor > 0)) return start + step * i;
  if (!round) return start * std::pow(factor, i);
  // the nearest integers, each at least one above the one before
  double size = std::round(start);
  for (int k = 1; k <= i; ++k) size = std::max(size + 1, std::round(start * std::pow(factor, k)));
  return size;
}

SizeLadder parse_size_ladder(const std::string& text) {
  const auto colon = text.find(':');
  const std::string expected = "expected START:+STEP, START:*FACTOR or START:*FACTOR:round with a positive start, "
                               "e.g. 40:+8 or 40:*1.19:round";
  if (colon == std::string::npos || colon + 2 > text.size())
    throw Error(fmt::format("--sizes '{}' ({})", text, expected));
  SizeLadder ladder;
  try {
    std::size_t used = 0;
    ladder.start = std::stod(text.substr(0, colon), &used);
    if (used != colon) throw std::invalid_argument("start");
    const char op = text[colon + 1];
    std::string rest = text.substr(colon + 2);
    // ":round": a geometric ladder of integers, for a program that reads its size as one
    if (const std::string suffix = ":round";
        op == '*' && rest.size() > suffix.size() && rest.compare(rest.size() - suffix.size(), suffix.size(), suffix) == 0) {
      ladder.round = true;
      rest.resize(rest.size() - suffix.size());
    }
    const double v = std::stod(rest, &used);
    if (used != rest.size()) throw std::invalid_argument("step");
    if (op == '+') ladder.step = v;
    else if (op == '*') ladder.factor = v;
    else throw std::invalid_argument("op");
  } catch (const std::exception&) {
    throw Error(fmt::format("--sizes '{}' ({})", text, expected));
  }
  if (!(ladder.start > 0) || (ladder.factor == 0 && !(ladder.step > 0)) || (ladder.factor != 0 && !(ladder.factor > 1)))
    throw Error(fmt::format("--sizes '{}' ({}; a step above 0 or a factor above 1)", text, expected));
  return ladder;
}

std::vector<std::string> command_for_size(const std::vector<std::string>& command, double size) {
  const std::string value = size == std::floor(size) && std::abs(size) < 1e15
                                ? fmt::format("{}", static_cast<long long>(size))
                                : fmt::format("{}", size);
  std::vector<std::string> out;
  bool found = false;
  for (std::string arg : command) {
    for (std::size_t at = arg.find("{size}"); at != std::string::npos; at = arg.find("{size}", at + value.size())) {
      arg.replace(at, 6, value);
      found = true;
    }
    out.push_back(arg);
  }
  if (!found)
    throw Error("the command has no {size} (expected the input size's place in an argument, e.g. --nx={size})");
  return out;
}

double MergedProfile::seconds() const {
  double w = 0;
  for (const StackSample& s : stacks) w += s.weight;
  return hz > 0 ? w / hz : 0;
}

double MergedProfile::inclusive_seconds(const std::string& function) const {
  const auto it = std::find(names.begin(), names.end(), function);
  if (it == names.end() || !(hz > 0)) return 0;
  const int id = static_cast<int>(it - names.begin());
  double weight = 0; // each sample once, however often the function recurses in it
  for (const StackSample& s : stacks)
    if (std::find(s.frames.begin(), s.frames.end(), id) != s.frames.end()) weight += s.weight;
  return weight / hz;
}

namespace {
bool is_mpi_setup(const std::string& name) {
  static const std::set<std::string> setup = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "PMPI_Init",
                                              "PMPI_Init_thread", "PMPI_Finalize", "mpi_init_", "mpi_init_thread_",
                                              "mpi_finalize_", "mpi_init", "mpi_finalize"};
  return setup.count(name) > 0;
}
} // namespace

MergedProfile merge_ranks(double size, const std::vector<profile::FunctionProfile>& ranks) {
  if (ranks.empty()) throw Error(fmt::format("the run at size {} left no profile (expected one per rank)", size));
  MergedProfile m;
  m.size = size;
  m.ranks = static_cast<int>(ranks.size());
  m.hz = ranks[0].hz;
  std::map<std::string, int> ids;
  std::map<std::vector<int>, double> merged;
  for (const profile::FunctionProfile& r : ranks) {
    if (r.hz != m.hz)
      throw Error(fmt::format("the run at size {}: ranks sampled at {} and {} Hz (expected one rate)", size, m.hz, r.hz));
    for (const StackSample& s : r.stacks) {
      bool setup = false;
      std::vector<int> frames;
      for (int f : s.frames) {
        const std::string& name = r.names[f];
        setup = setup || is_mpi_setup(name);
        auto [it, added] = ids.emplace(name, static_cast<int>(m.names.size()));
        if (added) m.names.push_back(name);
        frames.push_back(it->second);
      }
      if (!setup) merged[frames] += s.weight / static_cast<double>(ranks.size());
    }
  }
  for (auto& [frames, weight] : merged) m.stacks.push_back({frames, weight});
  return m;
}

bool phases_converged(const PhaseSet& smaller, const PhaseSet& larger, double tolerance) {
  if (smaller.phases.size() != larger.phases.size()) return false;
  for (std::size_t i = 0; i < smaller.phases.size(); ++i) {
    bool matched = false;
    for (std::size_t j = 0; j < larger.phases.size(); ++j)
      if (smaller.phases[i] == larger.phases[j]) {
        matched = std::abs(smaller.shares[i] - larger.shares[j]) <= tolerance;
        break;
      }
    if (!matched) return false;
  }
  return true;
}

PhaseSet same_phases_in(const PhaseSet& chosen, const std::vector<std::string>& names,
                        const std::vector<StackSample>& samples) {
  const std::vector<FunctionShare> shares = function_shares(names, samples);
  PhaseSet out;
  for (const std::string& phase : chosen.phases) {
    const auto it = std::find_if(shares.begin(), shares.end(), [&](const FunctionShare& f) { return f.name == phase; });
    out.phases.push_back(phase);
    out.shares.push_back(it == shares.end() ? 0.0 : it->inclusive);
    out.coverage += out.shares.back();
  }
  return out;
}

} // namespace perfcast::phase
