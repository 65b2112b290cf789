#include "core/Interrupt.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <cstring>
#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <mutex>
#include <semaphore.h>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

namespace perfcast {

namespace {

std::atomic<int> g_signal{0};
std::atomic<int> g_count{0};
sem_t g_wake;
double g_grace_s = 1.5;

// the child the watchdog stops, and the paths it removes; guarded by g_mutex
std::mutex g_mutex;
pid_t g_child = -1;
bool g_child_group = false;
constexpr int kSlots = 16;
std::array<std::string, kSlots> g_paths;
std::array<bool, kSlots> g_used{};

std::atomic<bool> g_from_kernel{false}; // the terminal's Ctrl-C, not another process's kill

void on_signal(int sig, siginfo_t* info, void*)
{
  // async-signal-safe only: atomic stores and sem_post; errno is the
  // interrupted code's
  const int saved_errno = errno;
  if (g_count.load() == 0)
    g_from_kernel.store(info && info->si_code > 0);
  g_count.fetch_add(1);
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
  sem_post(&g_wake);
  errno = saved_errno;
}

// a /proc file's text, or "" when it cannot be read: a process that ends while
// it is read makes read() fail with ESRCH, which a std::ifstream turns into an
// exception from inside the stream buffer
std::string read_proc_file(const std::filesystem::path& path)
{
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  std::string text;
  char buf[512];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      text.clear();
    break;
  }
  ::close(fd);
  return text;
}

// the processes below `root` (a launcher's ranks, which Open MPI puts in
// process groups of their own), from /proc's parent links; with
// `outside_group`, only those outside that process group (and what is below them)
std::vector<pid_t> descendants(pid_t root, pid_t outside_group = 0)
{
  std::map<pid_t, std::vector<pid_t>> children;
  std::map<pid_t, pid_t> group;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const std::string stat = read_proc_file(entry.path() / "stat");
    const auto close = stat.rfind(')'); // the command name may hold spaces and parentheses
    if (close == std::string::npos)
      continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long ppid = 0, pgid = 0;
    if (rest >> state >> ppid >> pgid && state != "Z" && state != "X") { // an ended process waiting to be reaped is gone
      const auto pid = static_cast<pid_t>(std::stol(name));
      children[static_cast<pid_t>(ppid)].push_back(pid);
      group[pid] = static_cast<pid_t>(pgid);
    }
  }
  std::vector<pid_t> out, todo{root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children[p]) {
      if (!outside_group || group[c] != outside_group)
        out.push_back(c);
      todo.push_back(c);
    }
  }
  return out;
}

// the child and everything below it get `sig`, as a terminal's Ctrl-C reaches
// every process of its foreground group at once
void send_to_child(int sig)
{
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_child <= 0)
    return;
  for (pid_t p : descendants(g_child))
    ::kill(p, sig);
  ::kill(g_child, sig);
}

bool has_descendants()
{
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_child > 0 && !descendants(g_child).empty();
}

bool child_running()
{
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_child > 0;
}

[[noreturn]] void clean_up_and_exit(int sig)
{
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (int k = 0; k < kSlots; ++k)
      if (g_used[static_cast<std::size_t>(k)]) {
        std::error_code ec;
        std::filesystem::remove_all(g_paths[static_cast<std::size_t>(k)], ec);
      }
  }
  const std::string line = fmt::format("perfcast: stopped by {}\n", sig == SIGINT ? "Ctrl-C (SIGINT)" : strsignal(sig));
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, line.data(), line.size());
  ::_exit(128 + sig);
}

// waits up to the grace period for a second signal; true when one came
bool second_signal_within_grace()
{
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(g_grace_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (g_count.load() > 1)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return g_count.load() > 1;
}

void watchdog()
{
  while (sem_wait(&g_wake) != 0 && errno == EINTR) {
  }
  const int sig = g_signal.load();
  const std::string line =
      fmt::format("perfcast: {} received, stopping (press Ctrl-C again to stop at once)\n",
                  sig == SIGINT ? "Ctrl-C" : strsignal(sig));
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, line.data(), line.size());
  // a child that did not see the signal (it has a process group of its own,
  // or the signal came from another process's kill rather than the
  // terminal): it and its descendants get it once, as from a terminal, so
  // that an MPI launcher's ranks have it at once (signalled alone, Open
  // MPI's mpirun takes 8 s to pass it on and stop, and takes a second signal
  // as "kill now")
  bool reached_child = false;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    reached_child = g_child > 0 && !g_child_group && g_from_kernel.load();
  }
  if (!reached_child) {
    send_to_child(sig);
  } else {
    // on a terminal the Ctrl-C reached our foreground group, the launcher
    // with it, but not the ranks it put in groups of their own
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_child > 0)
      for (pid_t p : descendants(g_child, ::getpgrp()))
        ::kill(p, sig);
  }
  // a launcher whose ranks have all ended on the signal is told to stop now
  // rather than after its own clean-up delays (mpirun's take seconds)
  if (has_descendants()) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(g_grace_s);
    while (std::chrono::steady_clock::now() < deadline && child_running() && has_descendants() && g_count.load() < 2)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (child_running() && !has_descendants())
      send_to_child(SIGTERM);
  }
  if (child_running()) {
    // the child gets the grace period for each step; its caller then
    // throws, and the stack unwinds with the outputs' owners removing them
    for (int step : {SIGTERM, SIGKILL}) {
      if (second_signal_within_grace()) {
        send_to_child(SIGKILL);
        clean_up_and_exit(sig);
      }
      if (!child_running())
        break;
      send_to_child(step);
    }
    // what the caller writes after its child (a trace's index) takes a moment
    for (int k = 0; k < 4; ++k)
      if (second_signal_within_grace())
        clean_up_and_exit(sig);
  } else {
    second_signal_within_grace();
  }
  // the work did not reach a check in time: end it, removing its outputs
  clean_up_and_exit(sig);
}

} // namespace

Interrupted::Interrupted(int signal)
    : Error(signal == SIGINT ? "interrupted by Ctrl-C (SIGINT)" : fmt::format("interrupted by {}", strsignal(signal))),
      signal_(signal)
{
}

void install_interrupt_handling(double grace_s)
{
  g_grace_s = grace_s;
  sem_init(&g_wake, 0, 0);
  std::thread(watchdog).detach();
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return g_signal.load(); }

void throw_if_interrupted()
{
  if (int sig = g_signal.load())
    throw Interrupted(sig);
}

ChildOnInterrupt::ChildOnInterrupt(pid_t pid, bool own_group)
{
  std::lock_guard<std::mutex> lock(g_mutex);
  g_child = pid;
  g_child_group = own_group;
}

ChildOnInterrupt::~ChildOnInterrupt()
{
  std::lock_guard<std::mutex> lock(g_mutex);
  g_child = -1;
}

CleanupOnInterrupt::CleanupOnInterrupt(std::string path)
{
  std::lock_guard<std::mutex> lock(g_mutex);
  for (int k = 0; k < kSlots; ++k)
    if (!g_used[static_cast<std::size_t>(k)]) {
      g_used[static_cast<std::size_t>(k)] = true;
      g_paths[static_cast<std::size_t>(k)] = std::move(path);
      slot_ = k;
      return;
    }
}

CleanupOnInterrupt::~CleanupOnInterrupt() { release(); }

void CleanupOnInterrupt::release()
{
  std::lock_guard<std::mutex> lock(g_mutex);
  if (slot_ >= 0)
    g_used[static_cast<std::size_t>(slot_)] = false;
  slot_ = -1;
}

} // namespace perfcast
