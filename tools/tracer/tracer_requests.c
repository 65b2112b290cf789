/* perfcast's PMPI tracer: the table of outstanding requests and the scratch
 * arrays of the wrappers. Both grow on demand; nothing here has a fixed
 * capacity. The request table is an open-addressing hash table kept at most
 * half full, so every probe sequence meets a free slot and every loop below
 * is bounded by the table's size. Callers hold the tracer's lock when the
 * program runs at MPI_THREAD_MULTIPLE (tracer.c). */
#define _GNU_SOURCE
#include "tracer.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAPACITY 1024

static struct pc_pending *table;
static size_t capacity; /* a power of two, or 0 before the first request */
static size_t used;

static size_t home_slot(MPI_Request r, size_t mask)
{
  uint64_t h = (uint64_t)(uintptr_t)r;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) & mask;
}

/* places an entry known to be absent into a table with a free slot */
static void place(struct pc_pending *slots, size_t mask, struct pc_pending p)
{
  size_t i = home_slot(p.handle, mask);
  while (slots[i].kind != PC_REQ_FREE)
    i = (i + 1) & mask;
  slots[i] = p;
}

static int grow(void)
{
  size_t bigger = capacity ? capacity * 2 : FIRST_CAPACITY;
  struct pc_pending *slots = calloc(bigger, sizeof *slots);
  if (!slots)
    return -1;
  /* from just after a free slot, so no probe chain wraps and copies of one
   * handle keep their order */
  size_t start = 0;
  while (start < capacity && table[start].kind != PC_REQ_FREE)
    ++start;
  for (size_t k = 1; k <= capacity; ++k) {
    size_t i = (start + k) & (capacity - 1);
    if (table[i].kind != PC_REQ_FREE)
      place(slots, bigger - 1, table[i]);
  }
  free(table);
  table = slots;
  capacity = bigger;
  return 0;
}

/* A handle may be outstanding more than once: Open MPI hands every small
 * send that completes at once the same empty request. Each copy is kept and
 * the oldest is found first, so waits pair with posts in program order. */
int pc_requests_remember(struct pc_pending p)
{
  if (p.handle == MPI_REQUEST_NULL)
    return 0;
  if ((used + 1) * 2 > capacity && grow() != 0)
    return -1;
  place(table, capacity - 1, p);
  ++used;
  return 0;
}

struct pc_pending pc_requests_forget(MPI_Request r)
{
  struct pc_pending none = {MPI_REQUEST_NULL, PC_REQ_FREE, 0, 0, 0, 0};
  if (r == MPI_REQUEST_NULL || capacity == 0)
    return none;
  size_t mask = capacity - 1, i = home_slot(r, mask);
  for (size_t probes = 0; probes < capacity; ++probes, i = (i + 1) & mask) {
    if (table[i].kind == PC_REQ_FREE)
      return none;
    if (table[i].handle != r)
      continue;
    struct pc_pending found = table[i];
    /* backward-shift deletion: an entry further along may move into the hole
     * when the hole lies between its home slot and where it sits */
    size_t hole = i, j = i;
    for (size_t steps = 0; steps < capacity; ++steps) {
      j = (j + 1) & mask;
      if (table[j].kind == PC_REQ_FREE)
        break;
      size_t home = home_slot(table[j].handle, mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        table[hole] = table[j];
        hole = j;
      }
    }
    table[hole].kind = PC_REQ_FREE;
    --used;
    return found;
  }
  return none;
}

size_t pc_requests_outstanding(void) { return used; }

/* ---- per-thread scratch arrays: two threads may wait at the same time */

struct scratch {
  void *data;
  size_t bytes;
};

enum { SCRATCH_SAVED, SCRATCH_F_REQUESTS, SCRATCH_F_STATUSES, SCRATCH_KINDS };

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void free_scratch(void *p)
{
  struct scratch *s = p;
  for (int k = 0; k < SCRATCH_KINDS; ++k)
    free(s[k].data);
  free(s);
}

static void make_scratch_key(void) { pthread_key_create(&scratch_key, free_scratch); }

/* this thread's buffer of the given kind, at least `bytes` long; NULL when memory is exhausted */
static void *scratch(int kind, size_t bytes)
{
  pthread_once(&scratch_once, make_scratch_key);
  struct scratch *s = pthread_getspecific(scratch_key);
  if (!s) {
    s = calloc(SCRATCH_KINDS, sizeof *s);
    if (!s || pthread_setspecific(scratch_key, s) != 0) {
      free(s);
      return NULL;
    }
  }
  if (bytes > s[kind].bytes) {
    size_t want = bytes < SIZE_MAX / 2 ? bytes * 2 : bytes;
    void *grown = realloc(s[kind].data, want);
    if (!grown)
      return NULL;
    s[kind].data = grown;
    s[kind].bytes = want;
  }
  return s[kind].data;
}

MPI_Request *pc_save_requests(int count, const MPI_Request *requests)
{
  if (count <= 0 || !requests)
    return NULL;
  MPI_Request *saved = scratch(SCRATCH_SAVED, sizeof(MPI_Request) * (size_t)count);
  if (saved)
    memcpy(saved, requests, sizeof(MPI_Request) * (size_t)count);
  else
    pc_note_failure("out of memory for a copy of the request array");
  return saved;
}

MPI_Request *pc_requests_f2c(int count, const MPI_Fint *requests)
{
  MPI_Request *c = scratch(SCRATCH_F_REQUESTS, sizeof(MPI_Request) * (size_t)(count > 0 ? count : 1));
  if (!c)
    return NULL; /* PMPI reports the null array to the program as an error */
  for (int i = 0; i < count; ++i)
    c[i] = MPI_Request_f2c(requests[i]);
  return c;
}

void pc_requests_c2f(int count, const MPI_Request *c_requests, MPI_Fint *requests)
{
  for (int i = 0; c_requests && i < count; ++i)
    requests[i] = MPI_Request_c2f(c_requests[i]);
}

MPI_Status *pc_statuses(int count)
{
  return scratch(SCRATCH_F_STATUSES, sizeof(MPI_Status) * (size_t)(count > 0 ? count : 1));
}
