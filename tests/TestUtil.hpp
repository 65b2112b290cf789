#pragma once
// Helpers for tests: temporary directories and files, running the CLI and SimGrid.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace perfcast::test {

/// A fresh directory under the system temp dir, removed at scope exit.
class TempDir {
public:
  TempDir()
  {
    std::string tmpl = (std::filesystem::temp_directory_path() / "perfcast-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir()
  {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name, const std::string& content) const
  {
    std::string p = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p) << content;
    return p;
  }
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

struct CommandResult {
  int status = -1;
  std::string output; // stdout and stderr together
};

/// Runs a shell command and captures its output and exit status.
inline CommandResult run_command(const std::string& command)
{
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0)
    r.output.append(buf.data(), n);
  int st = ::pclose(pipe);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline std::string source_dir() { return PERFCAST_SOURCE_DIR; }

/// True when `name` is a command on PATH (tests skip, with a message, without it).
inline bool have_command(const std::string& name) { return run_command("command -v " + name).status == 0; }
inline std::string perfcast_binary() { return PERFCAST_BINARY; }

/// A whole file as a string ("" when it cannot be read).
inline std::string read_text(const std::string& path)
{
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Runs `perfcast ARGS`.
inline CommandResult run_perfcast(const std::string& args) { return run_command(perfcast_binary() + " " + args); }

/// `perfcast replay ARGS --json -q`, parsed; a failed run fails the calling test.
inline nlohmann::json replay_json(const std::string& args)
{
  auto r = run_perfcast("replay " + args + " --json -q");
  EXPECT_EQ(r.status, 0) << r.output.substr(0, 2000);
  return nlohmann::json::parse(r.output);
}

/// The simulated time `smpirun -replay` gives a trace; -1 (and the output in
/// `log`) when it printed none.
inline double simgrid_makespan(const std::string& index, int ranks, const std::string& platform,
                               const std::string& hostfile, std::string& log)
{
  auto r = run_command(fmt::format("{}/scripts/simgrid-replay-time.sh {} {} {} {}", source_dir(), index, ranks,
                                   platform, hostfile));
  log = r.output;
  try {
    return r.status == 0 ? std::stod(r.output) : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

/// Environment for Open MPI's mpirun as root, several ranks per core.
inline constexpr const char* kMpiEnv =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1";

/// Tests that run programs under the tracer: skipped, with the reason, when
/// the tracer was not built or Open MPI's mpicc and mpirun are missing.
class TracerTest : public ::testing::Test {
protected:
  void SetUp() override
  {
#ifndef PERFCAST_TRACER
    GTEST_SKIP() << "the tracer library was not built (no MPI found at configure time)";
#endif
    if (!have_command("mpicc") || !have_command("mpirun"))
      GTEST_SKIP() << "Open MPI's mpicc and mpirun are not installed (Debian packages libopenmpi-dev, openmpi-bin)";
  }
};

} // namespace perfcast::test
