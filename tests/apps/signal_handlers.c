/* A program with its own signal handlers, to check the tracer chains to them.
 * usage: signal_handlers MODE DIR
 * - before: a SIGTERM checkpoint handler (sigaction, SA_SIGINFO) installed
 *   before MPI_Init; each rank raises SIGTERM halfway, the handler writes
 *   DIR/checkpoint-R and returns, the run goes on to MPI_Finalize.
 * - after: a SIGTERM handler installed with signal() after MPI_Init writes
 *   DIR/checkpoint-R and ends the process with _exit(0); sigaction() must
 *   report that handler back to the program.
 * - segv: raises SIGSEGV after MPI_Init (Open MPI's own handler prints its
 *   "Process received signal" report before the process dies).
 * Each rank sends 10 messages to the other before and after the signal. */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char checkpoint[4096];
static volatile sig_atomic_t handled;

static void write_checkpoint(void)
{
  int fd = open(checkpoint, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)write(fd, "checkpoint\n", 11);
    close(fd);
  }
}

static void on_term_info(int sig, siginfo_t *info, void *context)
{
  (void)sig, (void)context;
  if (info && info->si_signo == SIGTERM)
    write_checkpoint();
  handled = 1;
}

static void on_term_exit(int sig)
{
  (void)sig;
  write_checkpoint();
  _exit(0);
}

static void exchange(int rank, int size)
{
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  for (int i = 0; i < 10; ++i) {
    int out = i, in = 0;
    MPI_Sendrecv(&out, 1, MPI_INT, peer, 0, &in, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "before";
  if (!strcmp(mode, "before")) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_term_info;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint-%d", argc > 2 ? argv[2] : ".", rank);
  if (!strcmp(mode, "after")) {
    signal(SIGTERM, on_term_exit);
    struct sigaction seen;
    sigaction(SIGTERM, NULL, &seen);
    if (seen.sa_handler != on_term_exit)
      printf("rank %d: sigaction reports another SIGTERM handler than the program's\n", rank);
  }
  exchange(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(mode, "segv"))
    raise(SIGSEGV);
  raise(SIGTERM);
  if (!strcmp(mode, "before") && !handled)
    printf("rank %d: the SIGTERM handler did not run\n", rank);
  exchange(rank, size);
  MPI_Finalize();
  return 0;
}
