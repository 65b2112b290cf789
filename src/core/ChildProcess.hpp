#pragma once
// Running a command to completion with this process's environment, less
// some variables and plus others: what `perfcast comm run` and `perfcast
// phases run` do with the user's program.
#include <string>
#include <vector>

namespace perfcast {

/// How a child ended: its exit code, or the signal that killed it.
struct ChildExit {
  int exit_code = 0;
  int signal = 0; ///< 0 when it exited
  /// The shell's convention: the exit code, or 128 + the signal.
  int status() const { return signal ? 128 + signal : exit_code; }
};

/// Runs `command` (looked up in PATH) and waits for it. Its environment is
/// this process's without the variables whose NAME=VALUE starts with one of
/// `drop_prefixes`, followed by `extra_env` (NAME=VALUE each). Throws Error
/// when the command cannot be started.
ChildExit run_child(const std::vector<std::string>& command, const std::vector<std::string>& extra_env,
                    const std::vector<std::string>& drop_prefixes);

} // namespace perfcast
