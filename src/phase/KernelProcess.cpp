#include "phase/KernelProcess.hpp"

#include "core/Error.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace perfcast::phase {
namespace fs = std::filesystem;
namespace {

volatile std::sig_atomic_t interrupt_signal = 0;
struct sigaction previous_int {}, previous_term {};

void note_interrupt(int signal) { interrupt_signal = signal; }

bool holds_kernels(const fs::path& dir)
{
  std::error_code ec;
  return fs::is_regular_file(dir / "perfcast-kernel-gemm", ec);
}

/// Waits for the child, killing its process group first when `kill_it`.
int reap(pid_t pid, bool kill_it)
{
  if (kill_it) {
    ::kill(-pid, SIGTERM);
    for (int i = 0; i < 40; ++i) { // 2 s for mpirun to stop its ranks
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : SIGTERM);
      ::usleep(50000);
    }
    ::kill(-pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (kill_it) ::kill(-pid, SIGKILL); // ranks left behind by a killed mpirun
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

KernelRun run_once(const KernelLaunch& launch, const std::string& name, long size)
{
  std::vector<std::string> args = launch.mpirun;
  for (const std::string& extra : {std::string("-np"), std::to_string(launch.procs),
                                   (fs::path(launch.kernel_dir) / ("perfcast-kernel-" + name)).string(),
                                   std::to_string(size)})
    args.push_back(extra);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) throw Error(fmt::format("kernel {}: cannot make a pipe: {}", name, std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0); // its own group: a time-out kills mpirun and its ranks together
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return {-1, fmt::format("cannot run '{}': {}", args[0], std::strerror(rc))};
  }
  KernelRun run;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(launch.timeout_seconds);
  bool stop = false;
  char buffer[4096];
  while (true) {
    if (interrupt_signal) {
      run.output += "\ninterrupted";
      stop = true;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      run.output += fmt::format("\nstopped after {} s (the time limit of one run)", launch.timeout_seconds);
      stop = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break; // end of output: the launcher and its ranks are done
    if (run.output.size() < (1u << 20)) run.output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  run.status = reap(pid, stop);
  if (stop && run.status == 0) run.status = 128 + SIGTERM;
  return run;
}

} // namespace

std::string find_kernel_dir()
{
  if (const char* dir = std::getenv("PERFCAST_KERNEL_DIR"); dir && *dir) {
    if (!holds_kernels(dir))
      throw Error(fmt::format("PERFCAST_KERNEL_DIR={}: no perfcast-kernel-gemm there (expected the directory of the "
                              "kernel programs)",
                              dir));
    return dir;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& dir : {self, self / ".." / "libexec" / "perfcast"})
    if (!ec && holds_kernels(dir)) return dir.lexically_normal().string();
  throw Error(fmt::format("{}: no perfcast-kernel-* programs beside perfcast or in ../libexec/perfcast (expected "
                          "perfcast built with MPI, or PERFCAST_KERNEL_DIR naming their directory)",
                          self.string()));
}

KernelRunner mpi_kernel_runner(const KernelLaunch& launch)
{
  return [launch](const std::string& name, long size) { return run_once(launch, name, size); };
}

InterruptGuard::InterruptGuard()
{
  interrupt_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = note_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &previous_int);
  sigaction(SIGTERM, &sa, &previous_term);
}

InterruptGuard::~InterruptGuard()
{
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
}

bool InterruptGuard::interrupted() { return interrupt_signal != 0; }

} // namespace perfcast::phase
