#pragma once
// Ctrl-C (SIGINT) and SIGTERM, handled the same way in every command.
//
// The first signal is recorded and announced on stderr at once. The work
// stops at its next check (throw_if_interrupted, also called by the child
// process runners when their child ends), and the Interrupted error unwinds
// the stack, so every half-made output is removed by its owner. A child
// process that is running gets the signal too (forwarded when it has its own
// process group), then SIGTERM and SIGKILL if it has not ended after a grace
// period. If the work does not reach a check within that grace period (a
// long computation in a library), a watchdog removes the outputs registered
// with CleanupOnInterrupt and ends the process with status 130. A second
// signal ends it at once the same way.
#include "core/Error.hpp"

#include <string>
#include <sys/types.h>

namespace perfcast {

/// The error that unwinds an interrupted command; main exits with 128 + signal.
class Interrupted : public Error {
public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

private:
  int signal_;
};

/// Installs the SIGINT and SIGTERM handlers and the watchdog; once, from main.
/// `grace_s` is how long the work and a child get before the next step.
void install_interrupt_handling(double grace_s = 2.0);

/// The signal that interrupted the run, or 0.
int interrupt_signal();

/// Throws Interrupted when a signal came.
void throw_if_interrupted();

/// While it lives, the watchdog stops this child (its process group when it
/// has one of its own) on an interrupt: the signal itself, then SIGTERM, then
/// SIGKILL, each after the grace period.
class ChildOnInterrupt {
public:
  ChildOnInterrupt(pid_t pid, bool own_group);
  ~ChildOnInterrupt();
  ChildOnInterrupt(const ChildOnInterrupt&) = delete;
  ChildOnInterrupt& operator=(const ChildOnInterrupt&) = delete;
};

/// While it lives and is not released, the watchdog's last resort removes
/// this path (a directory with everything in it) before ending the process.
class CleanupOnInterrupt {
public:
  explicit CleanupOnInterrupt(std::string path);
  ~CleanupOnInterrupt();
  CleanupOnInterrupt(const CleanupOnInterrupt&) = delete;
  CleanupOnInterrupt& operator=(const CleanupOnInterrupt&) = delete;
  /// The path is kept: the watchdog leaves it alone from now on.
  void release();

private:
  int slot_ = -1;
};

} // namespace perfcast
