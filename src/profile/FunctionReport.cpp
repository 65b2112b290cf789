#include "profile/FunctionReport.hpp"

#include "core/Error.hpp"
#include "phase/SmallRuns.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace perfcast::profile {

FunctionReport function_report(const std::vector<FunctionProfile>& ranks, std::size_t top) {
  if (ranks.empty()) throw Error("no function profile (expected rank-R.functions.json from perfcast trace --functions)");
  const phase::MergedProfile m = phase::merge_ranks(0, ranks);
  FunctionReport r;
  r.ranks = m.ranks;
  r.hz = m.hz;
  r.seconds = m.seconds();
  for (const phase::FunctionShare& f : phase::function_shares(m.names, m.stacks)) {
    if (r.top.size() == top) break;
    r.top.push_back({f.name, f.inclusive * r.seconds, f.inclusive, f.exclusive * r.seconds, f.exclusive});
  }
  // A sample inside MPI counts for the outermost MPI function on its stack
  // (MPI_Allreduce, not the PMPI or internal frames below it).
  std::map<std::string, double> calls;
  double total_weight = 0;
  for (const phase::StackSample& s : m.stacks) {
    total_weight += s.weight;
    for (int id : s.frames)
      if (m.names[id].rfind("MPI_", 0) == 0 || m.names[id].rfind("PMPI_", 0) == 0) {
        calls[m.names[id]] += s.weight;
        break;
      }
  }
  for (const auto& [name, weight] : calls) {
    const double share = total_weight > 0 ? weight / total_weight : 0;
    r.mpi_calls.push_back({name, share * r.seconds, share});
    r.mpi_share += share;
  }
  r.mpi_seconds = r.mpi_share * r.seconds;
  std::stable_sort(r.mpi_calls.begin(), r.mpi_calls.end(),
                   [](const MpiCallLine& a, const MpiCallLine& b) { return a.seconds > b.seconds; });
  return r;
}

std::string format_function_report(const FunctionReport& r) {
  std::string out = fmt::format("functions: {} rank(s), {:.3f} s sampled per rank at {:g} Hz\n", r.ranks, r.seconds, r.hz);
  out += fmt::format("  {:>9} {:>7} {:>9} {:>7}  {}\n", "incl s", "incl %", "excl s", "excl %", "function");
  for (const FunctionLine& f : r.top)
    out += fmt::format("  {:9.3f} {:6.1f}% {:9.3f} {:6.1f}%  {}\n", f.inclusive_s, 100 * f.inclusive_share,
                       f.exclusive_s, 100 * f.exclusive_share, f.name);
  out += fmt::format("time in MPI calls: {:.3f} s per rank ({:.1f}%)\n", r.mpi_seconds, 100 * r.mpi_share);
  for (const MpiCallLine& c : r.mpi_calls)
    out += fmt::format("  {:9.3f} {:6.1f}%  {}\n", c.seconds, 100 * c.share, c.name);
  return out;
}

nlohmann::json function_report_json(const FunctionReport& r) {
  nlohmann::json top = nlohmann::json::array(), calls = nlohmann::json::array();
  for (const FunctionLine& f : r.top)
    top.push_back({{"name", f.name}, {"inclusive_s", f.inclusive_s}, {"inclusive_share", f.inclusive_share},
                   {"exclusive_s", f.exclusive_s}, {"exclusive_share", f.exclusive_share}});
  for (const MpiCallLine& c : r.mpi_calls) calls.push_back({{"name", c.name}, {"seconds", c.seconds}, {"share", c.share}});
  return {{"ranks", r.ranks},     {"hz", r.hz},          {"seconds_per_rank", r.seconds},
          {"top", top},           {"mpi_calls", calls},  {"mpi_s", r.mpi_seconds},
          {"mpi_share", r.mpi_share}};
}

} // namespace perfcast::profile
