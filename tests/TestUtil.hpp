#pragma once
// Helpers for tests: temporary directories and files, running the CLI.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
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
inline std::string perfcast_binary() { return PERFCAST_BINARY; }

} // namespace perfcast::test
