// perfcast trace and perfcast profile.
#include "Command.hpp"

#include "core/Error.hpp"
#include "phase/PhaseRunner.hpp"
#include "profile/FunctionReport.hpp"
#include "trace/Tracing.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <optional>

namespace perfcast::cli {
namespace {

// --iteration-at: an MPI function's C name, passed to the tracer in PERFCAST_ITERATION_AT
void set_iteration_call(const std::string& call)
{
  bool ok = call.size() > 5 && call.size() < 128 && call.rfind("MPI_", 0) == 0 && call[4] >= 'A' && call[4] <= 'Z';
  for (char c : call)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok)
    throw Error(fmt::format("--iteration-at {}: expected the name of an MPI function, such as MPI_Allreduce", call));
  ::setenv("PERFCAST_ITERATION_AT", call.c_str(), 1);
}

// whether rank 0's trace has a migration point
bool has_migration_point(const std::string& dir)
{
  std::ifstream in(dir + "/rank-0.txt");
  for (std::string line; std::getline(in, line);)
    if (line.find(" migrate ") != std::string::npos)
      return true;
  return false;
}

// --functions: the sampling profiler preloaded beside the tracer, writing
// into the trace directory; run_traced puts the tracer first in LD_PRELOAD
void preload_profiler(const std::string& dir)
{
  std::string preload = phase::find_profiler_library();
  if (const char* inherited = std::getenv("LD_PRELOAD"); inherited && *inherited)
    preload += std::string(":") + inherited;
  ::setenv("LD_PRELOAD", preload.c_str(), 1);
  ::setenv("PERFCAST_PROFILE_DIR", std::filesystem::absolute(dir).string().c_str(), 1);
  ::setenv("PERFCAST_PROFILE_RANKS_ONLY", "1", 1);
}

// whether a trace directory holds function profiles
bool has_function_profiles(const std::string& dir)
{
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("rank-", 0) == 0 && name.size() > 15 && name.rfind(".functions.json") == name.size() - 15)
      return true;
  }
  return false;
}

int run_trace(const std::string& dir, bool force, const std::vector<std::string>& command, const std::string& mpi,
              const std::string& iteration_at, bool functions)
{
  if (functions)
    preload_profiler(dir);
  if (!iteration_at.empty())
    set_iteration_call(iteration_at);
  else
    ::unsetenv("PERFCAST_ITERATION_AT");
  auto [status, profile, interrupted] = run_traced(dir, force, command, mpi);
  if (!iteration_at.empty() && !has_migration_point(dir))
    std::cerr << fmt::format("perfcast trace: warning: rank 0 never called {} (or the tracer does not intercept "
                             "it): the trace has no migration point\n",
                             iteration_at);
  std::cerr << fmt::format("perfcast trace: {} rank{} traced into {} ({}); index {}/trace.txt, profile {}/profile.json\n",
                           profile.ranks.size(), profile.ranks.size() == 1 ? "" : "s", dir,
                           profile.complete ? "complete" : "INCOMPLETE", dir, dir);
  if (!profile.complete)
    for (const RankProfile& r : profile.ranks)
      if (!r.complete)
        std::cerr << fmt::format("perfcast trace: rank {} stopped early: {}\n", r.rank, r.ended_by);
  if (functions) {
    const auto ranks = profile::keep_sampler_profiles(dir);
    std::cerr << fmt::format("perfcast trace: function profiles of {} rank(s) in {}/rank-R.functions.json\n",
                             ranks.size(), dir);
  }
  if (interrupted) {
    std::cerr << fmt::format("perfcast trace: interrupted; the trace in {} is incomplete ('perfcast profile {}' "
                             "shows what was recorded)\n",
                             dir, dir);
    return 128 + interrupted;
  }
  if (status != 0)
    return status;
  return profile.complete ? 0 : 3;
}

int run_profile(const std::string& dir, bool json)
{
  RunProfile profile = read_run_profile(dir);
  std::optional<profile::FunctionReport> functions;
  if (has_function_profiles(dir))
    functions = profile::function_report(profile::read_kept_profiles(dir), 15);
  if (json) {
    nlohmann::json j = run_profile_to_json(profile);
    if (functions)
      j["functions"] = profile::function_report_json(*functions);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << format_run_profile(profile);
    if (functions)
      std::cout << profile::format_function_report(*functions);
  }
  if (!profile.complete) {
    // an interrupted or crashed run's figures are partial: a script must not take them for a whole run
    std::cerr << fmt::format("perfcast profile: {} is an incomplete run ({} of {} ranks complete); its figures are "
                             "partial\n",
                             dir,
                             std::count_if(profile.ranks.begin(), profile.ranks.end(),
                                           [](const RankProfile& r) { return r.complete; }),
                             profile.ranks.size());
    return 3;
  }
  return 0;
}

struct TraceArgs {
  std::string dir;
  bool force = false;
  std::vector<std::string> command;
  std::string mpi = "auto";
  std::string iteration_at;
  bool functions = false;
  std::string profile_dir;
  bool profile_json = false;
};

} // namespace

void add_trace_commands(CLI::App& app, std::vector<Command>& out)
{
  auto t = std::make_shared<TraceArgs>();
  auto* tr = app.add_subcommand("trace", "run an MPI program with the tracer preloaded: perfcast trace -o DIR -- "
                                         "mpirun -np 4 ./app");
  tr->add_option("-o,--output", t->dir, "trace directory (one perfcast wrote is replaced; one holding other files needs --force)")->required();
  tr->add_flag("--force", t->force, "trace into a directory that holds other files (only perfcast's files are replaced)");
  tr->add_option("--mpi", t->mpi, "MPI implementation of the program: auto (from the libraries the program links, else the launcher), openmpi or mpich")
      ->capture_default_str();
  tr->add_option("--iteration-at", t->iteration_at,
                 "write a migration point (RANK migrate HEAP_BYTES) after every call of this MPI function, e.g. "
                 "MPI_Allreduce, for programs that do not call AMPI_Migrate or MPI_Migrate");
  tr->add_flag("--functions", t->functions,
               "also record each rank's sampling profile (rank-R.functions.json; perfcast profile shows the top "
               "functions)");
  tr->add_option("command", t->command, "the command after --")->required();
  out.push_back({tr, [t] { return run_trace(t->dir, t->force, t->command, t->mpi, t->iteration_at, t->functions); }});

  auto* pf = app.add_subcommand("profile", "report the run profile of a traced run");
  pf->add_option("dir", t->profile_dir, "trace directory written by perfcast trace")->required();
  pf->add_flag("--json", t->profile_json, "print JSON (the perfcast-runs format, with per-rank details)");
  out.push_back({pf, [t] { return run_profile(t->profile_dir, t->profile_json); }});
}

} // namespace perfcast::cli
