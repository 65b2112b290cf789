/* Master/worker processes after de Mello and Senger's validation (section 4 of
 * ../../shared/papers/unimpp-schedsim-mello-senger.txt): the master starts K
 * workers, sends each its share (an interval of 2 sin x + e^x and a number of
 * trapezia), each worker integrates its share, writes a given volume to disk,
 * and sends its result back. Workers are processes made with fork and talk to
 * the master over pipes: blocked workers sleep in the kernel instead of
 * polling (an MPI library would spin and steal the cores it shares), and all
 * K start within milliseconds on one machine.
 *
 * usage: mw_integral run --workers K --steps N --write-bytes B --dir D [--arrivals FILE]
 *          one CSV line per worker on stdout: its arrival, fork, share received,
 *          integration done, result received (seconds since the start), response,
 *          CPU time of the integration and of the whole process
 *        mw_integral calibrate --steps N [--workers K] [--rounds R] [--write-bytes B --dir D]
 *          the cost of one trapezium in the probe's unit (flop of the mix of eight
 *          multiply-add chains that perfcast probe times) on each of K workers'
 *          intervals (default 1: the whole of [0, 1]), measured by timing the
 *          two alternately in this one process, in its CPU time; and a worker's
 *          CPU time beyond its integration (fork, its write of B bytes in D, exit)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  double a, b;
  long steps;
  long write_bytes;
} Share;

/* 32 bytes, the paper's message size: the result and the worker's own clock
 * readings (seconds since the master's start, inherited through fork) */
typedef struct {
  double value;
  double received_s;   /* its share arrived */
  double integrated_s; /* the integration ended */
  double cpu_s;        /* CPU time of the integration alone */
} Result;

static double now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_s(void);
static double master_t0; /* the master's start, CLOCK_MONOTONIC; workers inherit it */

static void die(const char *what)
{
  fprintf(stderr, "mw_integral: %s: %s\n", what, strerror(errno));
  exit(1);
}

static double integrand(double x) { return 2 * sin(x) + exp(x); }

/* trapezium rule with n trapezia on [a, b] */
static double integrate(double a, double b, long n)
{
  double h = (b - a) / (double)n, sum = 0.5 * (integrand(a) + integrand(b));
  for (long j = 1; j < n; j++)
    sum += integrand(a + (double)j * h);
  return sum * h;
}

static void write_volume(const char *dir, long bytes, int id)
{
  if (bytes <= 0)
    return;
  char path[4096];
  snprintf(path, sizeof path, "%s/mw-worker-%d-%d.tmp", dir, (int)getpid(), id);
  const size_t block = 1 << 20;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
  if (fd < 0)
    die("open with O_DIRECT");
  void *buffer = NULL;
  if (posix_memalign(&buffer, 4096, block) != 0)
    die("posix_memalign");
  memset(buffer, 7, block);
  for (long done = 0; done < bytes; done += (long)block)
    if (write(fd, buffer, block) != (ssize_t)block)
      die("write");
  if (fdatasync(fd) != 0)
    die("fdatasync");
  close(fd);
  unlink(path);
  free(buffer);
}

static void worker(int id, int in, int out, const char *dir)
{
  Share s;
  if (read(in, &s, sizeof s) != (ssize_t)sizeof s)
    die("worker read");
  Result r;
  r.received_s = now_s() - master_t0;
  double c0 = cpu_s();
  r.value = integrate(s.a, s.b, s.steps);
  r.cpu_s = cpu_s() - c0;
  r.integrated_s = now_s() - master_t0;
  write_volume(dir, s.write_bytes, id);
  if (write(out, &r, sizeof r) != (ssize_t)sizeof r)
    die("worker write");
  _exit(0);
}

/* CPU seconds since boot from /proc/stat: the whole machine busy (user, nice,
 * system, irq, softirq, steal), to tell whether other processes ran beside the
 * measurement, and of those the host's steal (a vCPU runnable but not run by
 * the host: a process's CPU time does not count it, its response time does).
 * One read gives both */
struct MachineTimes {
  double busy_s, steal_s;
};

static struct MachineTimes machine_times(void)
{
  FILE *f = fopen("/proc/stat", "r");
  unsigned long long v[8] = {0};
  if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7]) != 8)
    die("/proc/stat");
  fclose(f);
  double tick = (double)sysconf(_SC_CLK_TCK);
  struct MachineTimes t = {(double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / tick, (double)v[7] / tick};
  return t;
}

/* seconds a process spent runnable, waiting for a core (/proc/PID/schedstat's
 * second field, readable until the process is reaped); -1 when unavailable */
static double run_delay_s(pid_t pid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
  FILE *f = fopen(path, "r");
  unsigned long long on_cpu_ns = 0, waiting_ns = 0;
  int n = f ? fscanf(f, "%llu %llu", &on_cpu_ns, &waiting_ns) : 0;
  if (f)
    fclose(f);
  return n == 2 ? 1e-9 * (double)waiting_ns : -1;
}

static double rusage_s(int who)
{
  struct rusage u;
  getrusage(who, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
         1e-6 * (double)u.ru_stime.tv_usec;
}

static int run(int k, long steps, long write_bytes, const char *dir, const char *arrivals_path)
{
  double *arrival = calloc((size_t)k, sizeof(double)), *finish = calloc((size_t)k, sizeof(double));
  double *started = calloc((size_t)k, sizeof(double)), *value = calloc((size_t)k, sizeof(double));
  struct pollfd *fds = calloc((size_t)k, sizeof(struct pollfd));
  pid_t *pids = calloc((size_t)k, sizeof(pid_t));
  Result *results = calloc((size_t)k, sizeof(Result));
  double *child_cpu = calloc((size_t)k, sizeof(double)), *delay = calloc((size_t)k, sizeof(double));
  long *voluntary = calloc((size_t)k, sizeof(long)), *involuntary = calloc((size_t)k, sizeof(long));
  if (arrivals_path) {
    FILE *f = fopen(arrivals_path, "r");
    if (!f)
      die(arrivals_path);
    for (int i = 0; i < k; i++)
      if (fscanf(f, "%lf", &arrival[i]) != 1) {
        fprintf(stderr, "mw_integral: %s: expected %d arrival times, one a line\n", arrivals_path, k);
        return 1;
      }
    fclose(f);
  }
  struct MachineTimes m0 = machine_times();
  double steal0 = m0.steal_s, busy0 = m0.busy_s, own0 = rusage_s(RUSAGE_SELF) + rusage_s(RUSAGE_CHILDREN);
  master_t0 = now_s();
  double t0 = master_t0;
  int next = 0, done = 0;
  while (done < k) {
    /* start every worker whose arrival time has come */
    while (next < k && now_s() - t0 >= arrival[next]) {
      int to_worker[2], to_master[2];
      if (pipe(to_worker) != 0 || pipe(to_master) != 0)
        die("pipe");
      started[next] = now_s() - t0;
      pid_t p = fork();
      if (p < 0)
        die("fork");
      if (p == 0) {
        close(to_worker[1]);
        close(to_master[0]);
        worker(next, to_worker[0], to_master[1], dir);
      }
      close(to_worker[0]);
      close(to_master[1]);
      pids[next] = p;
      double width = 1.0 / k;
      Share s = {next * width, (next + 1) * width, steps, write_bytes};
      if (write(to_worker[1], &s, sizeof s) != (ssize_t)sizeof s)
        die("master write");
      close(to_worker[1]);
      fds[next].fd = to_master[0];
      fds[next].events = POLLIN;
      next++;
    }
    int wait_ms = -1;
    if (next < k) {
      double left = arrival[next] - (now_s() - t0);
      wait_ms = left > 0 ? (int)ceil(left * 1000) : 0;
    }
    if (poll(fds, (nfds_t)next, wait_ms) < 0 && errno != EINTR)
      die("poll");
    for (int i = 0; i < next; i++)
      if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP))) {
        Result r;
        if (read(fds[i].fd, &r, sizeof r) != (ssize_t)sizeof r) {
          fprintf(stderr, "mw_integral: worker %d sent no result\n", i);
          return 1;
        }
        finish[i] = now_s() - t0;
        value[i] = r.value;
        results[i] = r;
        close(fds[i].fd);
        fds[i].fd = -1;
        done++;
      }
  }
  for (int i = 0; i < k; i++) {
    struct rusage usage;
    delay[i] = run_delay_s(pids[i]); /* a zombie until wait4 */
    if (wait4(pids[i], NULL, 0, &usage) < 0)
      die("wait4");
    voluntary[i] = usage.ru_nvcsw;
    involuntary[i] = usage.ru_nivcsw;
    child_cpu[i] = (double)usage.ru_utime.tv_sec + 1e-6 * (double)usage.ru_utime.tv_usec +
                   (double)usage.ru_stime.tv_sec + 1e-6 * (double)usage.ru_stime.tv_usec;
  }
  double elapsed = now_s() - t0, cores = (double)sysconf(_SC_NPROCESSORS_ONLN);
  struct MachineTimes m1 = machine_times();
  double steal = m1.steal_s - steal0, busy = m1.busy_s - busy0, own = rusage_s(RUSAGE_SELF) + rusage_s(RUSAGE_CHILDREN) - own0;
  /* the share of the machine's cores that other processes held during the run */
  fprintf(stderr, "mw_integral: others %.4f of the cores (machine busy %.2f s, this run %.2f s, %.2f s on %.0f cores)\n",
          (busy - own) / (elapsed * cores), busy, own, elapsed, cores);
  /* counted in the others' share above; a machine without steal accounting reports 0 */
  fprintf(stderr, "mw_integral: steal %.4f of the cores (%.2f s taken by the host)\n", steal / (elapsed * cores), steal);
  double total = 0, mean = 0;
  for (int i = 0; i < k; i++) {
    total += value[i];
    mean += (finish[i] - arrival[i]) / k;
  }
  /* the whole of [0, 1]: -2 cos x + e^x from 0 to 1 */
  double exact = -2 * cos(1.0) + exp(1.0) - (-2.0 + 1.0);
  /* start_s: the master forks it; received_s, integrated_s: the worker's own
   * clock; response_s: from its arrival time to its result, as the simulator
   * counts it (the master forks one worker after another while the first ones
   * already compute: at K = 40 the last fork came 0.5 s after its arrival at
   * 0, and counting from the fork took 2% off the mean response, 22:20 UTC);
   * integrate_cpu_s: CPU time of the integration; cpu_s: the whole process's
   * user and system time (wait4); voluntary_cs, involuntary_cs: its context
   * switches (blocked; preempted by the scheduler); run_delay_s: time it
   * spent runnable waiting for a core (/proc/PID/schedstat) */
  printf("worker,arrival_s,start_s,received_s,integrated_s,finish_s,response_s,integrate_cpu_s,cpu_s,voluntary_cs,"
         "involuntary_cs,run_delay_s\n");
  for (int i = 0; i < k; i++)
    printf("%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%ld,%ld,%.6f\n", i, arrival[i], started[i],
           results[i].received_s, results[i].integrated_s, finish[i], finish[i] - arrival[i], results[i].cpu_s,
           child_cpu[i], voluntary[i], involuntary[i], delay[i]);
  fprintf(stderr, "%d workers: mean response %.4f s; integral %.12f (exact %.12f)\n", k, mean, total, exact);
  if (fabs(total - exact) > 1e-6 * exact) {
    fprintf(stderr, "mw_integral: the workers' sum is wrong\n");
    return 1;
  }
  return 0;
}

/* CPU time of this process: load from other processes does not count */
static double cpu_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the probe's mix: eight multiply-add chains, 2 flop per multiply-add */
static double mix_rate(double seconds)
{
  volatile double keep = 0;
  double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7};
  double t0 = cpu_s(), t;
  long long iterations = 0;
  do {
    for (int i = 0; i < 20000; ++i)
      for (int j = 0; j < 8; ++j)
        x[j] = x[j] * 0.999999 + 1e-7;
    iterations += 20000 * 8;
    t = cpu_s() - t0;
  } while (t < seconds);
  for (int j = 0; j < 8; ++j)
    keep = keep + x[j];
  return 2.0 * (double)iterations / t;
}

/* The cost of one trapezium in the mix's flop, for each of K workers' intervals
 * [i/K, (i+1)/K] on its own (sin and exp do not cost the same everywhere, so
 * neither do the workers): each interval's `steps` trapezia are timed between
 * two timings of the mix, in this process's CPU time, and the cost is the
 * interval's time per trapezium times the mean rate of the two mix timings
 * around it (a change of the machine's speed moves both, though not always
 * by the same factor). `rounds` passes over the K intervals, each in a new
 * shuffled order (seeded) so that a drift of the machine during a pass does
 * not follow the workers' order; a worker's figure is the mean of its rounds. */
/* CPU time of a worker beyond its integration (fork, reading its share, the
 * write's system calls, sending the result, exit), in seconds: `n` workers
 * with a one-trapezium share run one after the other, and the CPU time the
 * kernel charges each (wait4) is averaged */
static double worker_overhead_s(long write_bytes, const char *dir, int n)
{
  double sum = 0;
  for (int i = 0; i < n; i++) {
    int to_worker[2], to_master[2];
    if (pipe(to_worker) != 0 || pipe(to_master) != 0)
      die("pipe");
    pid_t p = fork();
    if (p < 0)
      die("fork");
    if (p == 0) {
      close(to_worker[1]);
      close(to_master[0]);
      worker(i, to_worker[0], to_master[1], dir);
    }
    close(to_worker[0]);
    close(to_master[1]);
    Share s = {0, 1e-6, 1, write_bytes};
    Result r;
    if (write(to_worker[1], &s, sizeof s) != (ssize_t)sizeof s || read(to_master[0], &r, sizeof r) != (ssize_t)sizeof r)
      die("calibration worker");
    close(to_worker[1]);
    close(to_master[0]);
    struct rusage usage;
    if (wait4(p, NULL, 0, &usage) < 0)
      die("wait4");
    sum += (double)usage.ru_utime.tv_sec + 1e-6 * (double)usage.ru_utime.tv_usec + (double)usage.ru_stime.tv_sec +
           1e-6 * (double)usage.ru_stime.tv_usec - r.cpu_s;
  }
  return sum / n;
}

static int calibrate(long steps, int rounds, int k, long write_bytes, const char *dir)
{
  volatile double keep = 0;
  double *flop = calloc((size_t)k, sizeof(double));
  int *order = calloc((size_t)k, sizeof(int));
  for (int i = 0; i < k; i++)
    order[i] = i;
  unsigned long long seed = 12;
  mix_rate(0.05);
  /* the host's steal over the passes, as a share of the machine's cores: the
   * calibration runs beside a second one, one per core, as the runs keep both
   * busy, so the machine-wide figure is the one a run will meet */
  struct MachineTimes m0 = machine_times();
  double wall0 = now_s();
  double before = mix_rate(0.005), sum = 0, squares = 0, rate_sum = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = k - 1; i > 0; i--) { /* Fisher-Yates with a 64-bit LCG */
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      int j = (int)((seed >> 33) % (unsigned long long)(i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int o = 0; o < k; o++) {
      int i = order[o];
      double t0 = cpu_s();
      keep = keep + integrate((double)i / k, (double)(i + 1) / k, steps);
      double per_step = (cpu_s() - t0) / (double)steps;
      double after = mix_rate(0.005), rate = 0.5 * (before + after);
      double f = per_step * rate; /* this interval's trapezium in the mix's flop */
      flop[i] += f / rounds;
      sum += f;
      squares += f * f;
      rate_sum += rate;
      before = after;
    }
  }
  long n = (long)rounds * k;
  struct MachineTimes m1 = machine_times();
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  double steal_share = (m1.steal_s - m0.steal_s) / ((now_s() - wall0) * (double)(cores > 0 ? cores : 1));
  /* twenty workers' overhead, timed between the passes: one sample per worker
   * would be a few milliseconds, so many are averaged */
  double overhead_s = worker_overhead_s(write_bytes, dir, 20);
  double mean = sum / (double)n, sd = sqrt((squares - (double)n * mean * mean) / (double)(n - 1));
  printf("{\"flop_per_step\": %.6g, \"sd\": %.4g, \"rounds\": %d, \"mix_flop_per_s\": %.6g, \"workers\": %d, "
         "\"steps\": %ld, \"overhead_cpu_s\": %.6g, \"overhead_flop\": %.6g, \"steal_share\": %.6g, \"per_worker\": [",
         mean, sd, rounds, rate_sum / (double)n, k, steps, overhead_s, overhead_s * rate_sum / (double)n,
         steal_share < 0 ? 0.0 : steal_share);
  for (int i = 0; i < k; i++)
    printf("%s%.6g", i ? ", " : "", flop[i]);
  printf("]}\n");
  free(flop);
  free(order);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: mw_integral run|calibrate [options]\n");
    return 2;
  }
  int k = -1, rounds = 20;
  long steps = 1000000, write_bytes = 0;
  const char *dir = ".", *arrivals = NULL;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--workers"))
      k = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--steps"))
      steps = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--write-bytes"))
      write_bytes = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--dir"))
      dir = argv[i + 1];
    else if (!strcmp(argv[i], "--arrivals"))
      arrivals = argv[i + 1];
    else if (!strcmp(argv[i], "--rounds"))
      rounds = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "mw_integral: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (k == -1)
    k = strcmp(argv[1], "calibrate") ? 10 : 1;
  if (k < 1 || steps < 1 || rounds < 2 || write_bytes < 0) {
    fprintf(stderr, "mw_integral: expected --workers >= 1, --steps >= 1, --rounds >= 2, --write-bytes >= 0\n");
    return 2;
  }
  if (!strcmp(argv[1], "run"))
    return run(k, steps, write_bytes, dir, arrivals);
  if (!strcmp(argv[1], "calibrate"))
    return calibrate(steps, rounds, k, write_bytes, dir);
  fprintf(stderr, "mw_integral: unknown mode %s (expected run or calibrate)\n", argv[1]);
  return 2;
}
