#include "lb/DecisionReport.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace perfcast::lb {

namespace {

double ratio(const MappingSummary& s) { return s.average_load_s > 0 ? s.max_load_s / s.average_load_s : 1.0; }

std::vector<int> home_mapping(const LbProblem& problem)
{
  std::vector<int> map;
  for (const ObjectState& o : problem.objects)
    map.push_back(o.pe);
  return map;
}

} // namespace

MappingSummary summarize(const LbProblem& problem, const std::vector<int>& object_pe)
{
  MappingSummary s;
  s.pe_load_s = pe_loads(problem, object_pe);
  s.pe_objects.assign(problem.pes.size(), 0);
  for (int pe : object_pe)
    ++s.pe_objects[pe];
  double total = 0;
  int available = 0;
  for (std::size_t p = 0; p < problem.pes.size(); ++p) {
    total += s.pe_load_s[p];
    s.max_load_s = std::max(s.max_load_s, s.pe_load_s[p]);
    available += problem.pes[p].available ? 1 : 0;
  }
  s.average_load_s = available > 0 ? total / available : 0;
  return s;
}

std::uint64_t bytes_moved(const LbProblem& problem, const LbDecision& decision)
{
  std::uint64_t bytes = 0;
  for (std::size_t o = 0; o < problem.objects.size(); ++o)
    if (decision.new_pe[o] != problem.objects[o].pe)
      bytes += problem.objects[o].bytes;
  return bytes;
}

std::string format_decision(const std::string& spec, const LbProblem& problem, const LbDecision& decision)
{
  MappingSummary before = summarize(problem, home_mapping(problem));
  MappingSummary after = summarize(problem, decision.new_pe);
  std::string out = fmt::format("balancer: {}   ({} PEs, {} objects{})\n\n", spec, problem.pes.size(),
                                problem.objects.size(), problem.use_pe_speed ? ", loads scaled by PE speed" : "");
  out += fmt::format("{:>5} {:>9} {:>7} {:>12} {:>12} {:>8} {:>8}\n", "pe", "available", "speed", "before_s",
                     "after_s", "objs_bef", "objs_aft");
  for (std::size_t p = 0; p < problem.pes.size(); ++p)
    out += fmt::format("{:>5} {:>9} {:>7.3f} {:>12.6f} {:>12.6f} {:>8} {:>8}\n", p,
                       problem.pes[p].available ? "yes" : "no", problem.pes[p].speed, before.pe_load_s[p],
                       after.pe_load_s[p], before.pe_objects[p], after.pe_objects[p]);
  out += fmt::format("\nmax/avg load: before {:.4f} ({:.6f} / {:.6f} s), after {:.4f} ({:.6f} / {:.6f} s)\n",
                     ratio(before), before.max_load_s, before.average_load_s, ratio(after), after.max_load_s,
                     after.average_load_s);
  out += fmt::format("migrations: {} of {} objects, {} bytes moved\n", decision.migrations, problem.objects.size(),
                     bytes_moved(problem, decision));
  return out;
}

nlohmann::json decision_json(const std::string& spec, const LbProblem& problem, const LbDecision& decision)
{
  MappingSummary before = summarize(problem, home_mapping(problem));
  MappingSummary after = summarize(problem, decision.new_pe);
  nlohmann::json pes = nlohmann::json::array();
  for (std::size_t p = 0; p < problem.pes.size(); ++p)
    pes.push_back({{"id", p},
                   {"load_before_s", before.pe_load_s[p]},
                   {"load_after_s", after.pe_load_s[p]},
                   {"objects_before", before.pe_objects[p]},
                   {"objects_after", after.pe_objects[p]}});
  return {{"balancer", spec},
          {"assignment", decision.new_pe},
          {"migrations", decision.migrations},
          {"bytes_moved", bytes_moved(problem, decision)},
          {"max_avg_before", ratio(before)},
          {"max_avg_after", ratio(after)},
          {"pes", pes}};
}

} // namespace perfcast::lb
