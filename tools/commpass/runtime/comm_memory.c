/* Memory of the analysis: accounting against the limit, and the shadow
 * memory (a three-level table over the 48-bit address space, 4-byte slots). */
#define _DEFAULT_SOURCE
#include "comm_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t bytes_in_use, bytes_peak, bytes_limit;
static int limit_read;

static void over_limit(size_t wanted)
{
  char message[512];
  const char* out = getenv("PERFCAST_COMM_OUT");
  int n = snprintf(message, sizeof message,
                   "the value-flow analysis needs more than its memory limit of %zu bytes "
                   "(%zu in use, %zu more wanted)\n",
                   bytes_limit, bytes_in_use, wanted);
  if (out) {
    /* tell perfcast why the run stopped: OUT.limit holds the message */
    char path[4096];
    snprintf(path, sizeof path, "%s.limit", out);
    FILE* f = fopen(path, "w");
    if (f) {
      fputs(message, f);
      fclose(f);
    }
  }
  if (write(2, "perfcast-comm: ", 15) < 0 || write(2, message, (size_t)n) < 0) {
  }
  _exit(87);
}

static void account(size_t bytes)
{
  if (!limit_read) {
    const char* env = getenv("PERFCAST_COMM_MEMORY_LIMIT");
    bytes_limit = env ? strtoull(env, NULL, 10) : 0;
    limit_read = 1;
  }
  if (bytes_limit && bytes_in_use + bytes > bytes_limit)
    over_limit(bytes);
  bytes_in_use += bytes;
  if (bytes_in_use > bytes_peak)
    bytes_peak = bytes_in_use;
}

void* pc_alloc(size_t bytes)
{
  account(bytes);
  void* p = calloc(1, bytes);
  if (!p)
    over_limit(bytes);
  return p;
}

void* pc_realloc(void* p, size_t old_bytes, size_t new_bytes)
{
  account(new_bytes - old_bytes);
  void* q = realloc(p, new_bytes);
  if (!q)
    over_limit(new_bytes);
  memset((char*)q + old_bytes, 0, new_bytes - old_bytes);
  return q;
}

void pc_free(void* p, size_t bytes)
{
  free(p);
  bytes_in_use -= bytes;
}

size_t pc_peak_bytes(void)
{
  return bytes_peak;
}

/* slot index = address / 4: 46 bits, split 15 / 15 / 16 */
#define LEAF_BITS 16
#define MID_BITS 15
#define TOP_BITS 15
static PcSlot** top[1u << TOP_BITS];
static uintptr_t cached_chunk = ~(uintptr_t)0;
static PcSlot* cached_slots;

PcSlot* pc_slot(uintptr_t address)
{
  uintptr_t index = (address >> 2) & ((1ULL << 46) - 1);
  uintptr_t chunk = index >> LEAF_BITS;
  if (chunk != cached_chunk) {
    uintptr_t t = chunk >> MID_BITS, m = chunk & ((1u << MID_BITS) - 1);
    if (!top[t])
      top[t] = pc_alloc(sizeof(PcSlot*) << MID_BITS);
    if (!top[t][m]) {
      size_t bytes = sizeof(PcSlot) << LEAF_BITS;
      account(bytes);
      void* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        over_limit(bytes);
      top[t][m] = p;
    }
    cached_chunk = chunk;
    cached_slots = top[t][m];
  }
  return cached_slots + (index & ((1u << LEAF_BITS) - 1));
}
