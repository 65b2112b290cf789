/* Source sets of register values: a pool of nodes, each a small inline set
 * of vertices or a growing array (a reduction's accumulator). Combining two
 * small sets makes a new node; combining into a large set appends in place,
 * so a loop `s += x[i]` costs amortised O(1) per step. Nodes untouched for
 * two sweeps are reclaimed (a sweep runs every SWEEP_EVERY allocations). */
#include "comm_runtime.h"

#include <stdlib.h>
#include <string.h>

#define INLINE_IDS 6
#define SWEEP_EVERY (1u << 18)

typedef struct {
  uint32_t generation; /* 0: free */
  uint32_t count;
  uint32_t epoch;      /* last sweep period it was used in */
  uint32_t capacity;   /* > 0: ids live in big */
  union {
    uint32_t ids[INLINE_IDS];
    uint32_t* big;
  } u;
} Node;

static Node* pool;
static uint32_t pool_size, free_head, epoch = 1, since_sweep;
static uint32_t* next_free; /* free list links, parallel to pool */
unsigned long long pc_lost_flows;

static void sweep(void)
{
  for (uint32_t s = 1; s < pool_size; ++s) {
    Node* n = &pool[s];
    if (!(n->generation & 0x80000000u) && n->epoch + 2 < epoch) {
      if (n->capacity)
        pc_free(n->u.big, n->capacity * sizeof(uint32_t));
      n->capacity = 0;
      n->generation = (n->generation + 1) & 0x3fffffff;
      if (!n->generation)
        n->generation = 1;
      n->generation |= 0x80000000u; /* marks "free" while keeping the next generation */
      next_free[s] = free_head;
      free_head = s;
    }
  }
}

static uint32_t allocate(void)
{
  if (++since_sweep >= SWEEP_EVERY) {
    since_sweep = 0;
    ++epoch;
    sweep();
  }
  if (!free_head) {
    uint32_t old = pool_size, grown = pool_size ? pool_size * 2 : 1024;
    pool = pc_realloc(pool, old * sizeof(Node), grown * sizeof(Node));
    next_free = pc_realloc(next_free, old * sizeof(uint32_t), grown * sizeof(uint32_t));
    for (uint32_t s = grown - 1; s >= (old ? old : 1); --s) {
      pool[s].generation = 0x80000001u;
      next_free[s] = free_head;
      free_head = s;
    }
    pool_size = grown;
  }
  uint32_t s = free_head;
  free_head = next_free[s];
  pool[s].generation &= 0x3fffffff;
  pool[s].count = 0;
  pool[s].capacity = 0;
  pool[s].epoch = epoch;
  return s;
}

static Node* node_of(uint64_t handle)
{
  uint32_t s = (uint32_t)handle, g = (uint32_t)(handle >> 32);
  if (s == 0 || s >= pool_size || pool[s].generation != g) {
    ++pc_lost_flows;
    return NULL;
  }
  return &pool[s];
}

static uint32_t* ids_of(Node* n)
{
  return n->capacity ? n->u.big : n->u.ids;
}

void pc_touch(uint64_t handle)
{
  if (handle && !(handle & PC_LEAF)) {
    Node* n = node_of(handle);
    if (n)
      n->epoch = epoch;
  }
}

static int compare_ids(const void* a, const void* b)
{
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

static uint32_t unique(uint32_t* ids, uint32_t n)
{
  if (n < 2)
    return n;
  qsort(ids, n, sizeof *ids, compare_ids);
  uint32_t k = 1;
  for (uint32_t i = 1; i < n; ++i)
    if (ids[i] != ids[k - 1])
      ids[k++] = ids[i];
  return k;
}

static uint64_t handle_of(uint32_t s)
{
  return ((uint64_t)pool[s].generation << 32) | s;
}

uint64_t pc_make_set(const uint32_t* ids, size_t n)
{
  uint32_t s = allocate();
  Node* node = &pool[s];
  if (n <= INLINE_IDS) {
    memcpy(node->u.ids, ids, n * sizeof *ids);
  } else {
    node->capacity = (uint32_t)(n * 2);
    node->u.big = pc_alloc(node->capacity * sizeof(uint32_t));
    memcpy(node->u.big, ids, n * sizeof *ids);
  }
  node->count = (uint32_t)n;
  return handle_of(s);
}

/* appends ids to a large node, deduplicating when it fills */
static void append(Node* n, const uint32_t* ids, size_t k)
{
  if (n->count + k > n->capacity) {
    n->count = unique(n->u.big, n->count);
    if (n->count + k > n->capacity / 2) {
      uint32_t grown = (uint32_t)((n->count + k) * 2);
      n->u.big = pc_realloc(n->u.big, n->capacity * sizeof(uint32_t), grown * sizeof(uint32_t));
      n->capacity = grown;
    }
  }
  memcpy(n->u.big + n->count, ids, k * sizeof *ids);
  n->count += (uint32_t)k;
}

size_t pc_handle_sources(uint64_t handle, uint32_t** sources)
{
  static uint32_t one;
  if (!handle)
    return 0;
  if (handle & PC_LEAF) {
    one = (uint32_t)(handle & PC_VERTEX_MASK);
    *sources = &one;
    return 1;
  }
  Node* n = node_of(handle);
  if (!n)
    return 0;
  n->epoch = epoch;
  if (n->capacity)
    n->count = unique(n->u.big, n->count);
  *sources = ids_of(n);
  return n->count;
}

uint64_t __pc_combine(uint64_t a, uint64_t b)
{
  if (!a)
    return b & PC_LEAF ? b | PC_DERIVED : b;
  if (!b || a == b || (a & PC_LEAF && b & PC_LEAF && (a & PC_VERTEX_MASK) == (b & PC_VERTEX_MASK)))
    return a & PC_LEAF ? a | PC_DERIVED : a;
  Node* na = a & PC_LEAF ? NULL : node_of(a);
  Node* nb = b & PC_LEAF ? NULL : node_of(b);
  if (!(a & PC_LEAF) && !na)
    return b & PC_LEAF ? b | PC_DERIVED : b;
  if (!(b & PC_LEAF) && !nb)
    return a & PC_LEAF ? a | PC_DERIVED : a;
  uint32_t leaf_a = (uint32_t)(a & PC_VERTEX_MASK), leaf_b = (uint32_t)(b & PC_VERTEX_MASK);
  const uint32_t* ids_a = na ? ids_of(na) : &leaf_a;
  const uint32_t* ids_b = nb ? ids_of(nb) : &leaf_b;
  uint32_t count_a = na ? na->count : 1, count_b = nb ? nb->count : 1;
  if (na && na->capacity) { /* an accumulator grows in place */
    na->epoch = epoch;
    append(na, ids_b, count_b);
    return a;
  }
  if (nb && nb->capacity) {
    nb->epoch = epoch;
    append(nb, ids_a, count_a);
    return b;
  }
  uint32_t merged[2 * INLINE_IDS];
  uint32_t n = 0;
  for (uint32_t i = 0; i < count_a; ++i)
    merged[n++] = ids_a[i];
  for (uint32_t i = 0; i < count_b; ++i) {
    uint32_t k = 0;
    while (k < count_a && ids_a[k] != ids_b[i])
      ++k;
    if (k == count_a)
      merged[n++] = ids_b[i];
  }
  if (na)
    na->epoch = epoch;
  if (nb)
    nb->epoch = epoch;
  if (na && n == count_a)
    return a; /* b adds nothing */
  if (nb && n == count_b)
    return b;
  return pc_make_set(merged, n);
}

void pc_name_set(uint64_t handle, uint32_t vertex)
{
  if (!handle || handle & PC_LEAF)
    return;
  Node* n = node_of(handle);
  if (!n)
    return;
  if (n->capacity)
    pc_free(n->u.big, n->capacity * sizeof(uint32_t));
  n->capacity = 0;
  n->count = 1;
  n->u.ids[0] = vertex;
}

/* The union of the sources of n handles (an expression tree the pass folded
 * into one call): one new set instead of one per operator. An accumulator
 * among them grows in place, as in __pc_combine. */
uint64_t __pc_combine_many(const uint64_t* handles, uint32_t n)
{
  enum { kMaxGathered = 64 };
  Node* nodes[kMaxGathered];
  uint64_t kept[kMaxGathered];
  uint32_t k = 0;
  int accumulator = -1;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t h = handles[i];
    Node* node = h && !(h & PC_LEAF) ? node_of(h) : NULL;
    if (!h || (!(h & PC_LEAF) && !node))
      continue; /* no value, or a lost set (counted by node_of) */
    if (k == kMaxGathered) { /* a very wide expression: fold the rest pairwise */
      uint64_t acc = handles[i];
      for (uint32_t j = i + 1; j < n; ++j)
        acc = __pc_combine(acc, handles[j]);
      for (uint32_t j = 0; j < k; ++j)
        acc = __pc_combine(acc, kept[j]);
      return acc;
    }
    if (node && node->capacity && accumulator < 0)
      accumulator = (int)k;
    nodes[k] = node;
    kept[k++] = h;
  }
  if (k == 0)
    return 0;
  if (k == 1)
    return kept[0] & PC_LEAF ? kept[0] | PC_DERIVED : kept[0];
  if (accumulator >= 0) {
    Node* acc = nodes[accumulator];
    acc->epoch = epoch;
    for (uint32_t i = 0; i < k; ++i) {
      if (kept[i] == kept[accumulator])
        continue; /* the accumulator itself (appending it to itself would read what it moves) */
      uint32_t leaf = (uint32_t)(kept[i] & PC_VERTEX_MASK);
      if (nodes[i])
        nodes[i]->epoch = epoch;
      append(acc, nodes[i] ? ids_of(nodes[i]) : &leaf, nodes[i] ? nodes[i]->count : 1);
    }
    return kept[accumulator];
  }
  uint32_t ids[kMaxGathered * INLINE_IDS];
  uint32_t count = 0;
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t leaf = (uint32_t)(kept[i] & PC_VERTEX_MASK);
    const uint32_t* from = nodes[i] ? ids_of(nodes[i]) : &leaf;
    uint32_t m = nodes[i] ? nodes[i]->count : 1;
    if (nodes[i])
      nodes[i]->epoch = epoch;
    for (uint32_t j = 0; j < m; ++j) {
      uint32_t c = 0;
      while (c < count && ids[c] != from[j])
        ++c;
      if (c == count)
        ids[count++] = from[j];
    }
  }
  if (count == 1)
    return PC_LEAF | PC_DERIVED | ids[0];
  return pc_make_set(ids, count);
}
