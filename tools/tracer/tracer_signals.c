/* perfcast's PMPI tracer: signal handlers that flush the trace and then do
 * what the process would have done without the tracer.
 *
 * At MPI_Init the tracer installs one handler for SIGINT, SIGTERM, SIGSEGV,
 * SIGABRT and SIGBUS and keeps the action it replaced (the application's, or
 * Open MPI's backtrace printer) as the "previous" action. When a signal comes:
 * - previous action is a handler: the trace is flushed and provisionally
 *   marked incomplete, the handler runs (with its own SA_SIGINFO, SA_NODEFER
 *   and SA_RESETHAND semantics and its mask), and if it returns the mark is
 *   taken back and tracing goes on;
 * - previous action is the default (terminate): the trace is flushed and
 *   marked, the default action is restored and the signal raised again (a
 *   fault simply recurs when the handler returns);
 * - previous action is SIG_IGN: nothing, unless the signal is a fault the
 *   kernel raised, which it would have killed the process for anyway.
 * `sigaction` and `signal` are wrapped (the library is preloaded or linked
 * first): for these five signals, while the tracer's handler is installed, a
 * new action replaces the previous action and the tracer's handler stays in
 * front; queries see the previous action, as without the tracer. Programs
 * that call the rt_sigaction system call directly, or `sigset`/`sysv_signal`,
 * replace the tracer's handler: their signals then run without a flush.
 * Everything the handler calls is async-signal-safe. */
#define _GNU_SOURCE
#include "tracer.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

enum { TRACED_SIGNALS = 5 };
static const int traced[TRACED_SIGNALS] = {SIGINT, SIGTERM, SIGSEGV, SIGABRT, SIGBUS};
static struct sigaction previous[TRACED_SIGNALS];  /* what the program sees and gets */
static volatile sig_atomic_t installed[TRACED_SIGNALS];

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*signal_handler)(int);
typedef signal_handler (*signal_fn)(int, signal_handler);
extern int __sigaction(int, const struct sigaction *, struct sigaction *);

/* the next definition of sigaction after this library (libc's, or a sanitizer's) */
static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  static sigaction_fn next;
  if (!next) {
    next = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    if (!next)
      next = __sigaction;
  }
  return next(sig, act, old);
}

static int slot_of(int sig)
{
  for (int k = 0; k < TRACED_SIGNALS; ++k)
    if (traced[k] == sig)
      return k;
  return -1;
}

static int is_handler(const struct sigaction *a)
{
  return (a->sa_flags & SA_SIGINFO) || (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN);
}

static void on_signal(int sig, siginfo_t *info, void *context);

/* the tracer's handler in front, with the previous action's mask and restart behaviour */
static void install_front(int k)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | (previous[k].sa_flags & (SA_RESTART | SA_ONSTACK));
  sa.sa_mask = previous[k].sa_mask;
  real_sigaction(traced[k], &sa, NULL);
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
  int saved_errno = errno;
  int k = slot_of(sig);
  if (k < 0)
    return;
  struct sigaction prev = previous[k];
  /* a fault the kernel raised kills the process when ignored */
  int kernel_fault = (sig == SIGSEGV || sig == SIGBUS) && info && info->si_code > 0;
  if (!is_handler(&prev) && prev.sa_handler == SIG_IGN && !kernel_fault) {
    errno = saved_errno;
    return;
  }
  if (!is_handler(&prev)) { /* the default action: terminate */
    pc_signal_fatal(sig);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    installed[k] = 0;
    real_sigaction(sig, &dfl, NULL);
    if (!kernel_fault)
      raise(sig); /* pending until this handler returns */
    errno = saved_errno;
    return;
  }
  if (prev.sa_flags & SA_RESETHAND) { /* the kernel would have reset it on delivery */
    memset(&previous[k], 0, sizeof previous[k]);
    previous[k].sa_handler = SIG_DFL;
  }
  pc_signal_begin(sig);
  sigset_t old;
  int unblock = (prev.sa_flags & SA_NODEFER) != 0;
  if (unblock) {
    sigset_t self;
    sigemptyset(&self);
    sigaddset(&self, sig);
    sigprocmask(SIG_UNBLOCK, &self, &old);
  }
  errno = saved_errno;
  if (prev.sa_flags & SA_SIGINFO)
    prev.sa_sigaction(sig, info, context);
  else
    prev.sa_handler(sig);
  saved_errno = errno;
  if (unblock)
    sigprocmask(SIG_SETMASK, &old, NULL);
  pc_signal_end();
  errno = saved_errno;
}

void pc_signals_install(void)
{
  for (int k = 0; k < TRACED_SIGNALS; ++k) {
    if (installed[k] || real_sigaction(traced[k], NULL, &previous[k]) != 0)
      continue;
    install_front(k);
    installed[k] = 1;
  }
}

void pc_signals_restore(void)
{
  for (int k = 0; k < TRACED_SIGNALS; ++k)
    if (installed[k]) {
      installed[k] = 0;
      real_sigaction(traced[k], &previous[k], NULL);
    }
}

/* ---- the wrappers the program's calls resolve to */

static int chained_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  int k = slot_of(sig);
  if (k < 0 || !installed[k])
    return real_sigaction(sig, act, old);
  /* the handler reads `previous`: keep the signal out while it changes */
  sigset_t self, mask;
  sigemptyset(&self);
  sigaddset(&self, sig);
  pthread_sigmask(SIG_BLOCK, &self, &mask);
  if (old)
    *old = previous[k];
  if (act) {
    previous[k] = *act;
    install_front(k);
  }
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  return 0;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  return chained_sigaction(sig, act, old);
}

signal_handler signal(int sig, signal_handler handler)
{
  int k = slot_of(sig);
  if (k < 0 || !installed[k]) {
    static signal_fn next;
    if (!next)
      next = (signal_fn)dlsym(RTLD_NEXT, "signal");
    if (next)
      return next(sig, handler);
  }
  /* glibc's signal(): BSD semantics, the signal blocked in its handler */
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, sig);
  act.sa_flags = SA_RESTART;
  if (chained_sigaction(sig, &act, &old) != 0)
    return SIG_ERR;
  return old.sa_handler; /* shares its storage with sa_sigaction, as glibc's signal() returns it */
}
