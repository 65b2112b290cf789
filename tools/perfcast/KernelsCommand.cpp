// perfcast kernels build / list: measure the reference kernels (tools/kernels)
// on this machine into a kernel database, and show what a database holds.
#include "Command.hpp"

#include "core/Error.hpp"
#include "phase/KernelDatabase.hpp"
#include "phase/KernelListing.hpp"
#include "phase/KernelLadder.hpp"
#include "phase/KernelProcess.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace perfcast::cli {
namespace {
namespace fs = std::filesystem;
using namespace perfcast::phase;

struct KernelsBuildArgs {
  std::string output, kernels = "all", mpirun = "mpirun", machine;
  int procs = 2, repeats = 3;
  double max_seconds = 1.0, timeout = 600;
  bool force = false;
};

struct KernelsListArgs {
  std::string database;
  bool json = false;
};

/// Where the database will go (symbolic links followed), checked before any run.
std::string check_database_path(const std::string& path, bool force)
{
  std::error_code ec;
  fs::path target = fs::path(path);
  if (fs::is_symlink(target, ec)) target = fs::weakly_canonical(target, ec);
  const fs::file_status status = fs::status(target, ec);
  if (fs::exists(status)) {
    if (!fs::is_regular_file(status))
      throw Error(fmt::format("{}: not a regular file (expected a path for a kernel database)", path));
    bool ours = true;
    try {
      KernelDatabase::open(target.string());
    } catch (const Error&) {
      ours = false;
    }
    if (!force)
      throw Error(fmt::format("{}: exists and is {} (expected a new path, or --force to replace it)", path,
                              ours ? "a kernel database" : "not a kernel database perfcast wrote"));
  }
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("{}: no directory {} (expected an existing directory)", path, dir.string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(fmt::format("{}: directory {} cannot be written (expected a writable directory)", path, dir.string()));
  return target.string();
}

/// A temporary file removed at scope exit unless it was renamed into place.
struct PartialFile {
  std::string path;
  bool kept = false;
  ~PartialFile()
  {
    std::error_code ec;
    if (!kept) fs::remove(path, ec);
  }
};

std::vector<std::string> split_words(const std::string& text)
{
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string this_host()
{
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 && name[0] ? name : "unknown";
}

int run_kernels_build(const KernelsBuildArgs& a)
{
  if (a.procs < 1) throw Error(fmt::format("--procs {}: expected at least 1", a.procs));
  if (a.repeats < 1) throw Error(fmt::format("--repeats {}: expected at least 1", a.repeats));
  if (!(a.max_seconds > 0)) throw Error(fmt::format("--max-seconds {}: expected a positive time", a.max_seconds));
  if (!(a.timeout > 0)) throw Error(fmt::format("--timeout {}: expected a positive time", a.timeout));
  std::vector<KernelSpec> kernels;
  try {
    kernels = select_kernels(a.kernels);
  } catch (const Error& e) {
    throw Error(fmt::format("--kernels: {}", e.what()));
  }
  const std::vector<std::string> launcher = split_words(a.mpirun);
  if (launcher.empty()) throw Error("--mpirun: expected a launcher command such as mpirun");
  const std::string target = check_database_path(a.output, a.force);
  KernelLaunch launch{launcher, a.procs, find_kernel_dir(), a.timeout};
  const KernelRunner runner = mpi_kernel_runner(launch);
  const std::string machine = a.machine.empty() ? this_host() : a.machine;

  PartialFile partial{fmt::format("{}.partial-{}", target, ::getpid())};
  std::vector<std::string> skipped;
  std::size_t stored = 0;
  {
    KernelDatabase db = KernelDatabase::create(partial.path, machine, a.procs);
    InterruptGuard guard;
    const bool tty = ::isatty(STDERR_FILENO);
    const LadderOptions options{a.max_seconds, a.repeats, a.procs};
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      LadderProgress progress;
      if (tty)
        progress = [&](const std::string& name, long size, int repeat) {
          std::fprintf(stderr, "\r\033[Kkernels: [%zu/%zu] %s size %ld, run %d of %d", k + 1, kernels.size(),
                       name.c_str(), size, repeat + 1, a.repeats);
        };
      KernelOutcome outcome = measure_kernel(kernels[k], runner, options, progress);
      if (tty) std::fprintf(stderr, "\r\033[K");
      if (InterruptGuard::interrupted())
        throw Error(fmt::format("{}: interrupted while measuring {} (nothing written)", a.output, kernels[k].name));
      if (!outcome.failure.empty()) {
        std::cerr << fmt::format("kernel {}: skipped: {}\n", outcome.kernel, outcome.failure);
        skipped.push_back(outcome.kernel);
        continue;
      }
      db.add(outcome.kernel, kernels[k].unit(), outcome.points);
      ++stored;
      std::cout << fmt::format("{:<8} {:>3} runs, sizes {} to {}, {:.3e} s to {:.3e} s\n", outcome.kernel,
                               outcome.points.size(), outcome.points.front().size, outcome.points.back().size,
                               outcome.points.front().seconds, outcome.points.back().seconds)
                << std::flush;
    }
  }
  if (stored == 0) throw Error(fmt::format("{}: no kernel could be measured (nothing written)", a.output));
  std::error_code ec;
  fs::rename(partial.path, target, ec);
  if (ec) throw Error(fmt::format("{}: cannot rename {} into place: {}", a.output, partial.path, ec.message()));
  partial.kept = true;
  std::cout << fmt::format("{} kernels of {} written to {} (machine {}, {} processes)\n", stored, kernels.size(),
                           a.output, machine, a.procs);
  if (skipped.empty()) return 0;
  std::string names;
  for (const std::string& s : skipped) names += (names.empty() ? "" : ", ") + s;
  std::cerr << fmt::format("error: {} kernel(s) failed and were not stored: {}\n", skipped.size(), names);
  return 1;
}

int run_kernels_list(const KernelsListArgs& a)
{
  const KernelListing l = list_kernel_database(KernelDatabase::open(a.database), a.database);
  std::cout << (a.json ? l.to_json().dump(2) + "\n" : l.text());
  return 0;
}

} // namespace

void add_kernels_commands(CLI::App& app, std::vector<Command>& out)
{
  auto* kernels = app.add_subcommand("kernels", "reference kernels and their database (docs/phases.md)");
  kernels->require_subcommand(1);
  auto build_args = std::make_shared<KernelsBuildArgs>();
  auto* build = kernels->add_subcommand("build", "run the reference kernels over a ladder of sizes into a database");
  build->add_option("-o,--output", build_args->output, "the kernel database to write (SQLite)")->required();
  build->add_option("--procs", build_args->procs, "MPI processes per run (one database per process count)")
      ->capture_default_str();
  build->add_option("--kernels", build_args->kernels, "comma-separated kernel names, or all")->capture_default_str();
  build->add_option("--max-seconds", build_args->max_seconds,
                    "stop a kernel's ladder after the first size whose fastest run takes longer")
      ->capture_default_str();
  build->add_option("--repeats", build_args->repeats, "runs per size")->capture_default_str();
  build->add_option("--mpirun", build_args->mpirun, "the launcher and its flags; -np P is added")
      ->capture_default_str();
  build->add_option("--machine", build_args->machine, "the machine's name in the database (default: host name)");
  build->add_option("--timeout", build_args->timeout, "seconds after which one run is killed")->capture_default_str();
  build->add_flag("--force", build_args->force, "replace an existing file at the output path");
  out.push_back({build, [build_args] { return run_kernels_build(*build_args); }});

  auto list_args = std::make_shared<KernelsListArgs>();
  auto* list = kernels->add_subcommand("list", "print a kernel database: kernels, sizes, measured and model times");
  list->add_option("database", list_args->database, "a database written by perfcast kernels build")->required();
  list->add_flag("--json", list_args->json, "print a JSON object instead of a table");
  out.push_back({list, [list_args] { return run_kernels_list(*list_args); }});
}

} // namespace perfcast::cli
