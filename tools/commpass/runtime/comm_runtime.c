/* The entry points the pass calls: loads, stores, copies, calls, regions,
 * and the graph written at exit to $PERFCAST_COMM_OUT. */
#include "comm_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int pc_in_region = 1;
unsigned long long pc_region_calls, pc_values, pc_copies, pc_inputs, pc_unhandled;
int pc_region_matched;
const char* pc_region_name;
static int region_depth, started;

/* A plain run (PERFCAST_COMM_PLAIN=1): every instrumented function calls its
 * uninstrumented copy (the pass's dispatch tests this flag), and the runtime
 * only times the region, to measure what a value costs. */
unsigned char __pc_plain;
static double region_cpu, region_started, run_started;

static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t slots_of(uint32_t size)
{
  return size < 4 ? 1 : (size + 3) / 4;
}

static void start(void)
{
  if (started)
    return;
  started = 1;
  const char* plain = getenv("PERFCAST_COMM_PLAIN");
  __pc_plain = plain && strcmp(plain, "1") == 0;
  run_started = cpu_now();
  const char* region = getenv("PERFCAST_COMM_REGION");
  if (region && *region) {
    pc_region_name = region;
    pc_in_region = 0;
  }
}

/* A region named R matches C's R, Fortran's r_ and _QPr (flang) and C++'s _Z<len>R. */
static int names_region(const char* name)
{
  const char* r = pc_region_name;
  size_t n = strlen(r);
  if (strcmp(name, r) == 0)
    return 1;
  if (strncmp(name, "_QP", 3) == 0 && strlen(name + 3) == n) {
    for (size_t i = 0; i < n; ++i)
      if (name[3 + i] != (r[i] >= 'A' && r[i] <= 'Z' ? r[i] - 'A' + 'a' : r[i]))
        return 0;
    return 1;
  }
  /* flang's external procedures: relax_ */
  if (strlen(name) == n + 1 && name[n] == '_') {
    size_t i = 0;
    while (i < n && name[i] == (r[i] >= 'A' && r[i] <= 'Z' ? r[i] - 'A' + 'a' : r[i]))
      ++i;
    if (i == n)
      return 1;
  }
  char prefix[64];
  snprintf(prefix, sizeof prefix, "_Z%zu", n);
  size_t p = strlen(prefix);
  return strncmp(name, prefix, p) == 0 && strncmp(name + p, r, n) == 0;
}

typedef struct {
  const char* name;
  unsigned char* flag;
} RegionEntry;

void __pc_register_functions(const RegionEntry* table, int count)
{
  start();
  if (!pc_region_name)
    return;
  for (int i = 0; i < count; ++i)
    if (names_region(table[i].name)) {
      *table[i].flag = 1;
      pc_region_matched = 1;
    }
}

void __pc_register_module(const char* name, unsigned long long unhandled)
{
  (void)name;
  start();
  pc_unhandled += unhandled;
}

void __pc_region_enter(const char* name)
{
  (void)name;
  if (region_depth++ == 0) {
    ++pc_region_calls;
    pc_in_region = 1;
    if (__pc_plain)
      region_started = cpu_now();
  }
}

void __pc_region_exit(const char* name)
{
  (void)name;
  if (region_depth > 0 && --region_depth == 0) {
    pc_in_region = 0;
    if (__pc_plain)
      region_cpu += cpu_now() - region_started;
  }
}

/* ---- memory ---- */

/* A slot memset wrote holds a constant not yet made a value: the first read
 * makes it one (no sources, as a stored constant), not an input. */
#define PC_CONSTANT 0xffffffffu

static uint32_t create_value(uintptr_t address, uint32_t size, const uint32_t* sources, size_t n);

static void release(PcSlot* s)
{
  if (s->current && s->current != PC_CONSTANT)
    --pc_vertices[s->current].live;
  s->current = 0;
}

static uint32_t read_vertex(uintptr_t address, uint32_t size)
{
  PcSlot* s = pc_slot(address);
  if (s->current == PC_CONSTANT)
    return create_value(address, size, NULL, 0);
  if (s->current)
    return s->current;
  /* read before any write: an input value */
  uint32_t v = pc_new_vertex();
  pc_vertex_home(v, address);
  pc_vertices[v].bytes = size > 255 ? 255 : (uint8_t)size;
  pc_vertices[v].flags = PC_INPUT;
  ++pc_inputs;
  for (uint32_t k = 0; k < slots_of(size); ++k) {
    PcSlot* t = pc_slot(address + 4 * k);
    release(t);
    t->current = t->created = v;
    ++pc_vertices[v].live;
  }
  return v;
}

uint64_t __pc_load(void* address, uint32_t size)
{
  return PC_LEAF | read_vertex((uintptr_t)address, size);
}

uint64_t __pc_load_range(void* address, uint64_t size)
{
  uint32_t ids[64];
  size_t n = 0;
  for (uint64_t offset = 0; offset < size && n < 64; offset += 4) {
    uint32_t v = read_vertex((uintptr_t)address + offset, 4);
    if (n == 0 || ids[n - 1] != v)
      ids[n++] = v;
  }
  return n == 1 ? PC_LEAF | ids[0] : pc_make_set(ids, n);
}

static void copy_vertex(uintptr_t address, uint32_t size, uint32_t v)
{
  ++pc_copies;
  for (uint32_t k = 0; k < slots_of(size); ++k) {
    PcSlot* s = pc_slot(address + 4 * k);
    if (s->current == v)
      continue;
    release(s);
    s->current = v;
    ++pc_vertices[v].live;
  }
}

/* A new value at address, computed from the sources: it takes over a vertex
 * whose value has just died here (compression), else a new one. */
static uint32_t create_value(uintptr_t address, uint32_t size, const uint32_t* sources, size_t n)
{
  PcSlot* first = pc_slot(address);
  uint32_t old = first->current == PC_CONSTANT ? 0 : first->current;
  uint32_t created = first->created, previous = first->previous;
  for (uint32_t k = 0; k < slots_of(size); ++k)
    release(pc_slot(address + 4 * k));
  uint32_t v;
  if (old && pc_vertices[old].live == 0)
    v = old;
  else if (created && pc_vertices[created].live == 0)
    v = created;
  else if (previous && pc_vertices[previous].live == 0)
    v = previous;
  else {
    v = pc_new_vertex();
    pc_vertex_home(v, address);
  }
  if (v != created)
    previous = created;
  PcVertex* vertex = &pc_vertices[v];
  vertex->bytes = size > 255 ? 255 : (uint8_t)size;
  vertex->flags &= (uint8_t)~PC_INPUT;
  ++pc_values;
  if (pc_in_region) {
    ++vertex->work;
    for (size_t i = 0; i < n; ++i)
      pc_add_edge(sources[i], v);
  }
  ++pc_vertices[v].version; /* after the edges: a self-use reads the old value */
  for (uint32_t k = 0; k < slots_of(size); ++k) {
    PcSlot* s = pc_slot(address + 4 * k);
    s->current = s->created = v;
    s->previous = previous;
    ++pc_vertices[v].live;
  }
  return v;
}

void __pc_store(void* address, uint32_t size, uint64_t handle)
{
  if (handle & PC_LEAF && !(handle & PC_DERIVED)) {
    copy_vertex((uintptr_t)address, size, (uint32_t)(handle & PC_VERTEX_MASK));
    return;
  }
  uint32_t* sources = NULL;
  size_t n = pc_handle_sources(handle, &sources);
  uint32_t v = create_value((uintptr_t)address, size, sources, n);
  /* the register now holds a value known to memory: later uses of it flow
   * from that value, not again from its sources (section 4.1's backtracking
   * stops at a recognised value) */
  pc_name_set(handle, v);
}

void __pc_store_vector(void* address, uint32_t element_size, uint32_t elements, uint64_t handle)
{
  for (uint32_t e = 0; e < elements; ++e)
    __pc_store((char*)address + (size_t)e * element_size, element_size, handle);
}

void __pc_copy(void* destination, const void* source, uint64_t size)
{
  uintptr_t d = (uintptr_t)destination, s = (uintptr_t)source;
  uint64_t slots = size / 4;
  if (d == s || slots == 0)
    return;
  int backwards = d > s && d < s + size;
  for (uint64_t i = 0; i < slots; ++i) {
    uint64_t k = backwards ? slots - 1 - i : i;
    uint32_t v = pc_slot(s + 4 * k)->current;
    PcSlot* t = pc_slot(d + 4 * k);
    if (t->current == v)
      continue;
    release(t);
    t->current = v;
    if (v && v != PC_CONSTANT)
      ++pc_vertices[v].live;
  }
  ++pc_copies;
}

void __pc_clear(void* destination, uint64_t size)
{
  for (uint64_t k = 0; k < (size + 3) / 4; ++k) {
    PcSlot* s = pc_slot((uintptr_t)destination + 4 * k);
    release(s);
    s->current = PC_CONSTANT;
  }
}

/* ---- calls: shadows of arguments and results ---- */

static uint64_t arguments[16], no_arguments[16];
static const void* arguments_for;
static uint64_t result;
static const void* result_from;

uint64_t* __pc_call_begin(const void* callee)
{
  arguments_for = callee;
  result_from = NULL;
  return arguments;
}

const uint64_t* __pc_enter(const void* self)
{
  if (arguments_for != self)
    return no_arguments;
  arguments_for = NULL;
  return arguments;
}

void __pc_set_ret(const void* self, uint64_t handle)
{
  result = handle;
  result_from = self;
}

uint64_t __pc_call_result(const void* callee, uint64_t fallback)
{
  if (result_from == callee) {
    result_from = NULL;
    return result;
  }
  return fallback;
}

/* flop/s of this core on independent multiply-add chains, best of three
 * rounds of 2 ms of CPU time (as the tracer measures it, and overridden by
 * PERFCAST_FLOP_RATE as there), so that seconds convert to the flops a
 * replay's hosts compute */
static double flop_rate(void)
{
  const char* forced = getenv("PERFCAST_FLOP_RATE");
  if (forced && strtod(forced, NULL) > 0)
    return strtod(forced, NULL);
  volatile double sink = 0;
  double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7}, best = 0;
  for (int round = 0; round < 3; ++round) {
    double t0 = cpu_now(), elapsed;
    long n = 0;
    do {
      for (int i = 0; i < 20000; ++i)
        for (int k = 0; k < 8; ++k)
          x[k] = x[k] * 0.999999 + 1e-7;
      n += 20000 * 8;
      elapsed = cpu_now() - t0;
    } while (elapsed < 0.002);
    if (2.0 * (double)n / elapsed > best)
      best = 2.0 * (double)n / elapsed;
  }
  for (int k = 0; k < 8; ++k)
    sink += x[k];
  (void)sink;
  return best;
}

static void write_plain_times(const char* out)
{
  double total = cpu_now() - run_started;
  FILE* f = fopen(out, "w");
  if (!f)
    return;
  fprintf(f, "perfcast-comm-plain 1\nregion_calls %llu\nregion_cpu_seconds %.9g\ncpu_seconds %.9g\nflop_rate %.6g\n",
          pc_region_calls, pc_region_name ? region_cpu : total, total, flop_rate());
  fclose(f);
}

__attribute__((destructor)) static void finish(void)
{
  const char* out = getenv("PERFCAST_COMM_OUT");
  if (!out || !*out)
    return;
  if (__pc_plain) {
    write_plain_times(out);
    return;
  }
  int error = pc_write_graph(out);
  if (error)
    fprintf(stderr, "perfcast-comm: cannot write the value graph to %s: %s\n", out, strerror(error));
}
