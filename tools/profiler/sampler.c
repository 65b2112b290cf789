/* perfcast's sampling profiler, preloaded into a program (any program, MPI
 * or not). With PERFCAST_PROFILE_DIR set it samples the main thread's call
 * stack on a timer and writes the raw program counters to
 * DIR/sampler-PID.raw, with DIR/sampler-PID.meta (rank, clock, period) and
 * DIR/sampler-PID.maps (the address space, to name the counters afterwards:
 * `perfcast` symbolizes with libdw once the program has ended, so nothing
 * but copying addresses happens inside the program).
 *
 * Clock: all but "cpu" use a CLOCK_MONOTONIC timer aimed at the main thread.
 * "own" (default) counts each delivered signal once: the signal reaches the
 * thread once per period while it runs or waits in a call (a blocked call is
 * interrupted and restarted), and only once after the thread lost its core
 * to another process, so the samples measure the time the thread would
 * take on a machine of its own, not the load of a shared one. "wall" also
 * counts the missed expirations (weight 1 + overrun): wall time including
 * preemption. "cpu" is a CLOCK_THREAD_CPUTIME_ID timer: CPU time only, but
 * these machines deliver CPU-time timers at about 280 per CPU-second
 * whatever the rate asked (the kernel checks them at its tick).
 *
 * Rate: a timer signal costs tens of microseconds of the program's CPU time
 * on a virtual machine (the timer interrupt and the signal delivery; the
 * unwinding itself takes about a microsecond), measured the same with an
 * empty handler, so the default is 100 Hz: under 1% (bench/profiler_overhead.sh
 * reports the cost per sample), where 1000 Hz cost 5-10%.
 *
 * Environment: PERFCAST_PROFILE_DIR (required to sample), PERFCAST_PROFILE_HZ
 * (default 100), PERFCAST_PROFILE_CLOCK (own, wall or cpu),
 * PERFCAST_PROFILE_RANKS_ONLY=1 (sample only processes that have an MPI
 * rank in their environment, not mpirun and its daemons).
 *
 * SIGPROF stays the sampler's only while the sampler's handler holds it. A
 * process that installs its own (a launcher that forwards signals to its
 * job, as Open MPI's mpirun does: its ticks reached ranks that had not yet
 * installed a handler, and SIGPROF's default action ended them; a program
 * with a profiler of its own) stops the sampler first, through the
 * sigaction and signal below: its timer is deleted, a tick still pending is
 * discarded, and the samples so far are kept, with "yielded 1" in the meta. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PS_MAX_DEPTH 96
#define PS_SKIP 2 /* the handler and the signal trampoline */
#define PS_BUFFER_WORDS (1u << 19) /* 4 MiB, flushed when full */

static uintptr_t ps_buffer[PS_BUFFER_WORDS];
static size_t ps_used;
static int ps_fd = -1;
static volatile sig_atomic_t ps_active;
static timer_t ps_timer;
static unsigned long long ps_samples, ps_weight, ps_write_errors;
static int ps_count_overruns; /* the "wall" clock */

static void ps_flush(void)
{
  const char *p = (const char *)ps_buffer;
  size_t left = ps_used * sizeof(uintptr_t);
  while (left > 0) {
    ssize_t n = write(ps_fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { ps_write_errors++; break; }
    p += n;
    left -= (size_t)n;
  }
  ps_used = 0;
}

/* One record: weight, depth, then depth program counters, innermost first. */
static void ps_on_timer(int sig, siginfo_t *info, void *context)
{
  (void)sig;
  (void)context;
  if (!ps_active) return;
  int saved = errno;
  void *frames[PS_MAX_DEPTH + PS_SKIP];
  int depth = backtrace(frames, PS_MAX_DEPTH + PS_SKIP) - PS_SKIP;
  if (depth > 0) {
    if (ps_used + 2 + (size_t)depth > PS_BUFFER_WORDS) ps_flush();
    uintptr_t weight = 1;
    if (ps_count_overruns && info->si_code == SI_TIMER && info->si_overrun > 0) weight += (uintptr_t)info->si_overrun;
    ps_buffer[ps_used++] = weight;
    ps_buffer[ps_used++] = (uintptr_t)depth;
    for (int i = 0; i < depth; i++) ps_buffer[ps_used++] = (uintptr_t)frames[i + PS_SKIP];
    ps_samples++;
    ps_weight += weight;
  }
  errno = saved;
}

static void ps_copy_maps(const char *dir, long pid)
{
  char path[4096 + 64];
  snprintf(path, sizeof path, "%s/sampler-%ld.maps", dir, pid);
  int in = open("/proc/self/maps", O_RDONLY);
  int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in >= 0 && out >= 0) {
    char block[65536];
    ssize_t n;
    while ((n = read(in, block, sizeof block)) > 0)
      if (write(out, block, (size_t)n) != n) break;
  }
  if (in >= 0) close(in);
  if (out >= 0) close(out);
}

static const char *ps_rank(void)
{
  const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};
  for (int i = 0; names[i]; i++) {
    const char *v = getenv(names[i]);
    if (v && *v) return v;
  }
  return "-1";
}

static int ps_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

static char ps_dir[4096];
static int ps_started;
static long ps_pid; /* a forked child inherits the state but not the timer: it writes nothing */

__attribute__((constructor)) static void ps_start(void)
{
  const char *dir = getenv("PERFCAST_PROFILE_DIR");
  if (!dir || !*dir || strlen(dir) >= sizeof ps_dir) return;
  strcpy(ps_dir, dir);
  const char *hz_text = getenv("PERFCAST_PROFILE_HZ");
  long hz = hz_text ? strtol(hz_text, NULL, 10) : 100;
  if (hz < 1 || hz > 100000) hz = 100;
  const char *clock_text = getenv("PERFCAST_PROFILE_CLOCK");
  const int cpu = clock_text && strcmp(clock_text, "cpu") == 0;
  ps_count_overruns = clock_text && strcmp(clock_text, "wall") == 0;
  const char *clock_name = cpu ? "cpu" : ps_count_overruns ? "wall" : "own";
  const long pid = (long)getpid();
  /* Under mpirun only the ranks sample, not the launcher and its daemons. */
  const char *mpi_only = getenv("PERFCAST_PROFILE_RANKS_ONLY");
  if (mpi_only && strcmp(mpi_only, "1") == 0 && strcmp(ps_rank(), "-1") == 0) return;

  /* A program that handles SIGPROF itself keeps it: no profile then. */
  struct sigaction old;
  if (ps_real_sigaction(SIGPROF, NULL, &old) == 0 && old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) return;

  char path[4096 + 64];
  snprintf(path, sizeof path, "%s/sampler-%ld.raw", ps_dir, pid);
  ps_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (ps_fd < 0) return;
  snprintf(path, sizeof path, "%s/sampler-%ld.meta", ps_dir, pid);
  FILE *meta = fopen(path, "w");
  if (!meta) return;
  fprintf(meta, "pid %ld\nrank %s\nclock %s\nhz %ld\nword_bytes %zu\n", pid, ps_rank(), clock_name, hz,
          sizeof(uintptr_t));
  fclose(meta);

  void *warm[4];
  backtrace(warm, 4); /* loads the unwinder now, not inside the first signal */

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = ps_on_timer;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (ps_real_sigaction(SIGPROF, &sa, NULL) != 0) return;
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  if (timer_create(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ev, &ps_timer) != 0) return;
  struct itimerspec every;
  every.it_interval.tv_sec = 0;
  every.it_interval.tv_nsec = 1000000000L / hz;
  if (hz == 1) every.it_interval.tv_sec = 1, every.it_interval.tv_nsec = 0;
  every.it_value = every.it_interval;
  ps_started = 1;
  ps_pid = pid;
  ps_active = 1;
  timer_settime(ps_timer, 0, &every, NULL);
}

static int ps_yielded;

static int ps_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  static int (*real)(int, const struct sigaction *, struct sigaction *);
  if (!real) real = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  return real(sig, act, old);
}

/* The program takes SIGPROF: the timer goes, and with SIG_IGN for a moment a
 * tick already pending is discarded before the program's handler could see it. */
static void ps_yield(void)
{
  if (!ps_started || !ps_active || (long)getpid() != ps_pid) return;
  ps_active = 0;
  timer_delete(ps_timer);
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ps_real_sigaction(SIGPROF, &ignore, NULL);
  ps_yielded = 1;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  if (sig == SIGPROF && act && !((act->sa_flags & SA_SIGINFO) && act->sa_sigaction == ps_on_timer)) ps_yield();
  return ps_real_sigaction(sig, act, old);
}

sighandler_t signal(int sig, sighandler_t handler)
{
  static sighandler_t (*real)(int, sighandler_t);
  if (sig == SIGPROF) ps_yield();
  if (!real) real = (sighandler_t (*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");
  if (!real) {
    errno = ENOSYS;
    return SIG_ERR;
  }
  return real(sig, handler);
}

__attribute__((destructor)) static void ps_stop(void)
{
  if (!ps_started || (long)getpid() != ps_pid) return;
  if (ps_active) timer_delete(ps_timer);
  ps_active = 0;
  ps_flush();
  close(ps_fd);
  const long pid = (long)getpid();
  ps_copy_maps(ps_dir, pid);
  char path[4096 + 64];
  snprintf(path, sizeof path, "%s/sampler-%ld.meta", ps_dir, pid);
  FILE *meta = fopen(path, "a");
  if (meta) {
    fprintf(meta, "samples %llu\nweight %llu\nwrite_errors %llu\nyielded %d\ncomplete 1\n", ps_samples, ps_weight,
            ps_write_errors, ps_yielded);
    fclose(meta);
  }
}
