/* perfcast's PMPI tracer: the rank's trace file. Lines are buffered (1 MiB)
 * and only whole lines reach the file; the first write error stops the trace
 * and ends the file with "# perfcast: incomplete (REASON)" after its last
 * whole line. The signal hooks (called by tracer_signals.c) and the exit hook
 * end or provisionally mark the file with async-signal-safe calls only. */
#define _GNU_SOURCE
#include "tracer_state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- output: whole lines only; the first write error stops the trace */

/* async-signal-safe: write(2) until done; -1 with errno on failure, the
 * bytes that did reach the file in *done */
static int write_some(int fd, const char *data, size_t len, size_t *done)
{
  *done = 0;
  while (*done < len) {
    ssize_t n = write(fd, data + *done, len - *done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (n == 0) {
      errno = ENOSPC;
      return -1;
    }
    *done += (size_t)n;
  }
  return 0;
}

int write_all(int fd, const char *data, size_t len)
{
  size_t done;
  return write_some(fd, data, len, &done);
}

static void write_text(int fd, const char *text) { (void)write_all(fd, text, strlen(text)); }

/* Ends the file with "# perfcast: incomplete (WHY[: DETAIL])" after its last
 * whole line and stops tracing. Async-signal-safe; `keep_buffer` writes the
 * whole lines still buffered first (not when the buffer may be mid-change). */
void end_incomplete(const char *why, const char *detail, int keep_buffer)
{
  if (T.finalized || T.fd < 0)
    return;
  T.active = 0;
  T.finalized = 1;
  /* room for the mark even on a full disk */
  if (T.reserve_path[0])
    unlink(T.reserve_path);
  if (T.provisional_at >= 0) { /* a signal's provisional mark: replaced by this one */
    T.file_good = T.file_end = T.provisional_at;
    T.provisional_at = -1;
  }
  if (keep_buffer && T.used > 0 && T.file_end == T.file_good) {
    size_t whole = T.used;
    while (whole > 0 && T.buf[whole - 1] != '\n')
      --whole;
    if (whole > 0 && lseek(T.fd, T.file_good, SEEK_SET) >= 0 && write_all(T.fd, T.buf, whole) == 0)
      T.file_good += (off_t)whole;
  }
  /* drop any partly written line before the mark (a pipe cannot: the mark is appended) */
  if (ftruncate(T.fd, T.file_good) == 0)
    lseek(T.fd, T.file_good, SEEK_SET);
  write_text(T.fd, "# perfcast: incomplete (");
  write_text(T.fd, why);
  if (detail) {
    write_text(T.fd, ": ");
    write_text(T.fd, detail);
  }
  write_text(T.fd, ")\n");
  close(T.fd);
  T.fd = -1;
  T.used = 0;
}

/* the first write error: said on stderr and at the end of the trace */
void write_failed(const char *file, int err)
{
  if (T.finalized)
    return;
  char what[4200];
  snprintf(what, sizeof what, "write error on %s", file);
  const char *reason = strerrordesc_np(err);
  if (!reason)
    reason = "unknown error";
  fprintf(stderr, "perfcast tracer: rank %d: %s: %s (errno %d); the trace stops here and is marked incomplete\n",
          T.rank, what, reason, err);
  end_incomplete(what, reason, 0);
}

void pc_note_failure(const char *why)
{
  int locked = pc_lock();
  if (!T.finalized && T.fd >= 0) {
    fprintf(stderr, "perfcast tracer: rank %d: %s; the trace stops here and is marked incomplete\n", T.rank, why);
    T.busy++;
    end_incomplete(why, NULL, 1);
    T.busy--;
  }
  pc_unlock(locked);
}

/* a signal's provisional mark is taken back before anything else is written */
static void withdraw_provisional_mark(void)
{
  if (T.provisional_at < 0)
    return;
  if (ftruncate(T.fd, T.provisional_at) == 0)
    lseek(T.fd, T.provisional_at, SEEK_SET);
  T.file_good = T.file_end = T.provisional_at;
  T.provisional_at = -1;
}

/* Appends bytes to the file; file_good follows the last newline written,
 * also when a write error cuts the bytes short. */
static void write_out(const char *data, size_t len)
{
  withdraw_provisional_mark();
  size_t done = 0;
  int rc = write_some(T.fd, data, len, &done);
  int err = errno;
  T.file_end += (off_t)done;
  for (size_t i = done; i > 0; --i)
    if (data[i - 1] == '\n') {
      T.file_good = T.file_end - (off_t)(done - i);
      break;
    }
  if (rc != 0)
    write_failed(T.path, err);
}

/* Writes the complete lines of the buffer and keeps a line still being
 * built; with `all`, that line's start goes out too (a line longer than the
 * buffer: the file is cut back to its last newline if the rank dies). */
void flush_buffer(int all)
{
  if (T.fd < 0 || T.used == 0)
    return;
  T.busy++;
  size_t out = T.used;
  if (!all)
    while (out > 0 && T.buf[out - 1] != '\n')
      --out;
  if (out > 0)
    write_out(T.buf, out);
  if (T.active) {
    memmove(T.buf, T.buf + out, T.used - out);
    T.used -= out;
  }
  T.busy--;
}

void emit(const char *fmt, ...)
{
  if (!T.active)
    return;
  T.busy++;
  if (T.used > BUFFER_BYTES - 65536) {
    flush_buffer(0);
    if (T.used > BUFFER_BYTES / 2) /* one line fills half the buffer */
      flush_buffer(1);
  }
  if (T.active) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(T.buf + T.used, BUFFER_BYTES - T.used, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < BUFFER_BYTES - T.used) {
      T.used += (size_t)n;
    } else { /* a piece longer than the room left: written directly after the buffer */
      char *piece = NULL;
      va_start(ap, fmt);
      n = vasprintf(&piece, fmt, ap);
      va_end(ap);
      flush_buffer(1);
      if (n < 0)
        pc_note_failure("out of memory for a trace line");
      else if (T.active)
        write_out(piece, (size_t)n);
      free(piece);
    }
  }
  T.busy--;
}

static const char *signal_name(int sig)
{
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT"
         : sig == SIGBUS ? "SIGBUS" : "signal";
}

void pc_signal_fatal(int sig)
{
  if (!T.active || T.finalized)
    return;
  /* when the signal interrupted a change of the buffer, only the file's whole lines are kept */
  end_incomplete(signal_name(sig), NULL, T.busy == 0);
}

void pc_signal_begin(int sig)
{
  if (!T.active || T.finalized || T.busy || T.provisional_at >= 0 || T.file_end != T.file_good)
    return;
  T.busy++;
  size_t whole = T.used;
  while (whole > 0 && T.buf[whole - 1] != '\n')
    --whole;
  if (whole > 0 && write_all(T.fd, T.buf, whole) == 0) {
    T.file_good = T.file_end += (off_t)whole;
    memmove(T.buf, T.buf + whole, T.used - whole);
    T.used -= whole;
  }
  T.provisional_at = T.file_good;
  write_text(T.fd, "# perfcast: incomplete (");
  write_text(T.fd, signal_name(sig));
  write_text(T.fd, ", in the program's handler)\n");
  T.busy--;
}

void pc_signal_end(void)
{
  if (T.busy || T.finalized)
    return;
  T.busy++;
  withdraw_provisional_mark();
  T.busy--;
}

void on_exit_handler(void)
{
  if (T.provisional_at >= 0) { /* exit() from the program's signal handler: the mark stands */
    T.provisional_at = -1;
    T.finalized = 1;
    T.active = 0;
    return;
  }
  T.busy++;
  end_incomplete("exit before MPI_Finalize", NULL, 1);
  T.busy--;
}
