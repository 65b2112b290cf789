#include "core/ChildProcess.hpp"

#include "core/Error.hpp"
#include "core/Interrupt.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace perfcast {

ChildExit run_child(const std::vector<std::string>& command, const std::vector<std::string>& extra_env,
                    const std::vector<std::string>& drop_prefixes) {
  if (command.empty()) throw Error("no command to run (expected a command after --)");
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    bool drop = false;
    for (const std::string& prefix : drop_prefixes) drop = drop || kv.rfind(prefix, 0) == 0;
    if (!drop) env.push_back(kv);
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp, argv;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()); rc != 0)
    throw Error(fmt::format("cannot run '{}': {}", command[0], std::strerror(rc)));
  int status = 0;
  {
    // the child shares our process group: a terminal's Ctrl-C reaches it directly
    ChildOnInterrupt stop_on_interrupt(pid, false);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  throw_if_interrupted(); // the caller's outputs are removed as the error unwinds
  ChildExit out;
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  else out.exit_code = WEXITSTATUS(status);
  return out;
}

} // namespace perfcast
