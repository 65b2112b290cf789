/* The perfcast comm runtime: the dynamic value-flow analysis of CommAnalyzer
 * (Helal et al., section 4.1) behind the calls the pass plugin inserts.
 *
 * Program values live in memory; the shadow memory maps every 4-byte slot to
 * the graph vertex whose value it holds (0: none yet; a first read makes it an
 * input value). A vertex stands for a run of values that followed each other
 * in the same memory location without overlapping lifetimes: a store that
 * kills the last copy of a value reuses its vertex for the new value (the
 * paper's liveness-based compression, done on the fly), so the graph grows
 * with the memory the program touches, not with the number of stores.
 *
 * Values in registers are named by 64-bit handles:
 *   0                         no program value (constants, loop counters)
 *   bit 63 | vertex           a value loaded unchanged (storing it is a copy)
 *   bit 63 | bit 62 | vertex  computed from that one value (storing it creates a value)
 *   generation << 32 | slot   a set of source vertices in the node pool
 * Node-pool sets that have not been used for two sweeps are reclaimed; a
 * handle used after that counts as a lost flow, reported in the output.
 *
 * Single-threaded programs only. Not handled: atomics and inline assembly
 * (counted as unhandled), values passed through varargs or past the 16th
 * argument, writes by uninstrumented code (their results are read as inputs),
 * comparisons (they are conditions, not values). */
#ifndef PERFCAST_COMM_RUNTIME_H
#define PERFCAST_COMM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#define PC_LEAF (1ULL << 63)
#define PC_DERIVED (1ULL << 62)
#define PC_VERTEX_MASK 0xffffffffULL

/* memory accounting and the limit (PERFCAST_COMM_MEMORY_LIMIT bytes) */
void* pc_alloc(size_t bytes);
void* pc_realloc(void* p, size_t old_bytes, size_t new_bytes);
void pc_free(void* p, size_t bytes);
size_t pc_peak_bytes(void);

/* shadow memory: the vertex held by each 4-byte slot and the vertex last created there */
typedef struct {
  uint32_t current;  /* the vertex whose value the slot holds */
  uint32_t created;  /* the vertex last created here */
  uint32_t previous; /* the one created here before it (a copied-back array alternates two) */
} PcSlot;
PcSlot* pc_slot(uintptr_t address);

/* the value graph */
typedef struct {
  uint32_t live;    /* slots holding this vertex's current value */
  uint32_t version; /* values created in this vertex so far */
  uint32_t work;    /* values created inside the region */
  uint8_t bytes;    /* size of the value when it was stored */
  uint8_t flags;    /* PC_INPUT, ... */
  uint32_t array;   /* the recorded heap block it was created in (0: none) */
  uint64_t offset;  /* its byte offset there */
} PcVertex;
#define PC_INPUT 1
extern PcVertex* pc_vertices;
uint32_t pc_new_vertex(void);
uint32_t pc_vertex_count(void);
void pc_add_edge(uint32_t source, uint32_t sink);
int pc_write_graph(const char* path);

/* heap blocks (comm_arrays.c): where a new vertex lives */
void __pc_allocation(void* pointer, uint64_t bytes);
void pc_vertex_home(uint32_t vertex, uintptr_t address);
extern uint64_t* pc_array_bytes;
extern uint32_t pc_array_count;

/* handle sets */
size_t pc_handle_sources(uint64_t handle, uint32_t** sources);
uint64_t pc_make_set(const uint32_t* ids, size_t n);
void pc_touch(uint64_t handle);
/* after a store made vertex from the set: the set now stands for that one value */
void pc_name_set(uint64_t handle, uint32_t vertex);
extern unsigned long long pc_lost_flows;

/* state shared by the parts of the runtime */
extern int pc_in_region;
extern unsigned long long pc_region_calls, pc_values, pc_copies, pc_inputs, pc_unhandled;
extern int pc_region_matched;
extern const char* pc_region_name;

#endif
