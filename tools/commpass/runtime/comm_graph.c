/* The value communication graph: vertices (compressed runs of values) and
 * weighted edges source -> sink, with the number of uses and the number of
 * distinct source values used (what a remote reader must receive once each). */
#include "comm_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

PcVertex* pc_vertices;
static uint32_t vertex_count = 1, vertex_capacity; /* vertex 0 means "no value" */

/* A sink's edges sit together: its first BUCKET_SLOTS sources in one bucket
 * (two cache lines; consecutive sinks usually have consecutive buckets, so a
 * sweep over an array streams through them), any further ones in a hash
 * table. Uses saturate at 2^32 - 1 (they are reported, not analysed). */
#define BUCKET_SLOTS 8
typedef struct {
  uint32_t source; /* 0: free */
  uint32_t uses;
  uint32_t versions;
  uint32_t last_version;
} Slot;
typedef struct {
  Slot slot[BUCKET_SLOTS];
} Bucket;
static uint32_t* bucket_of; /* per vertex, 0: no incoming edge yet */
static Bucket* buckets;
static uint32_t bucket_count = 1, bucket_capacity;

typedef struct {
  uint64_t key; /* source << 32 | sink; 0: empty */
  Slot edge;
} Edge;
static Edge* edges;
static uint64_t edge_capacity, overflow_count, edge_count;

uint32_t pc_new_vertex(void)
{
  if (vertex_count >= vertex_capacity) {
    uint32_t grown = vertex_capacity ? vertex_capacity * 2 : 1u << 16;
    pc_vertices = pc_realloc(pc_vertices, vertex_capacity * sizeof(PcVertex), grown * sizeof(PcVertex));
    bucket_of = pc_realloc(bucket_of, vertex_capacity * sizeof(uint32_t), grown * sizeof(uint32_t));
    vertex_capacity = grown;
  }
  return vertex_count++;
}

uint32_t pc_vertex_count(void)
{
  return vertex_count;
}

static uint64_t slot_of(uint64_t key, uint64_t capacity)
{
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return key & (capacity - 1);
}

static void grow_edges(void)
{
  uint64_t grown = edge_capacity ? edge_capacity * 2 : 1u << 12;
  Edge* table = pc_alloc(grown * sizeof(Edge));
  for (uint64_t i = 0; i < edge_capacity; ++i)
    if (edges[i].key) {
      uint64_t s = slot_of(edges[i].key, grown);
      while (table[s].key)
        s = (s + 1) & (grown - 1);
      table[s] = edges[i];
    }
  if (edges)
    pc_free(edges, edge_capacity * sizeof(Edge));
  edges = table;
  edge_capacity = grown;
}

static Slot* overflow_slot(uint32_t source, uint32_t sink)
{
  if ((overflow_count + 1) * 10 > edge_capacity * 7)
    grow_edges();
  uint64_t key = (uint64_t)source << 32 | sink;
  uint64_t s = slot_of(key, edge_capacity);
  while (edges[s].key && edges[s].key != key)
    s = (s + 1) & (edge_capacity - 1);
  if (!edges[s].key) {
    edges[s].key = key;
    ++overflow_count;
  }
  return &edges[s].edge;
}

static Slot* edge_slot(uint32_t source, uint32_t sink)
{
  uint32_t b = bucket_of[sink];
  if (!b) {
    if (bucket_count >= bucket_capacity) {
      uint32_t grown = bucket_capacity ? bucket_capacity * 2 : 1u << 12;
      buckets = pc_realloc(buckets, bucket_capacity * sizeof(Bucket), grown * sizeof(Bucket));
      bucket_capacity = grown;
    }
    b = bucket_of[sink] = bucket_count++;
  }
  Slot* slot = buckets[b].slot;
  for (int k = 0; k < BUCKET_SLOTS; ++k)
    if (slot[k].source == source || slot[k].source == 0) {
      slot[k].source = source;
      return &slot[k];
    }
  return overflow_slot(source, sink);
}

void pc_add_edge(uint32_t source, uint32_t sink)
{
  if (source == sink || !source)
    return;
  Slot* e = edge_slot(source, sink);
  if (e->uses == 0)
    ++edge_count;
  if (e->uses != UINT32_MAX)
    ++e->uses;
  uint32_t version = pc_vertices[source].version;
  if (e->versions == 0 || e->last_version != version) {
    ++e->versions;
    e->last_version = version;
  }
}

/* ---- the graph file: text, formatted by hand into a large buffer (fprintf
 * was most of the cost of writing millions of edges) ---- */

typedef struct {
  FILE* file;
  char* data;
  size_t used, capacity;
  int failed;
} Writer;

static void flush(Writer* w)
{
  if (w->used && fwrite(w->data, 1, w->used, w->file) != w->used)
    w->failed = 1;
  w->used = 0;
}

static void put_text(Writer* w, const char* text)
{
  size_t n = strlen(text);
  if (w->used + n > w->capacity)
    flush(w);
  memcpy(w->data + w->used, text, n);
  w->used += n;
}

/* a number followed by a separator (space or newline) */
static void put_number(Writer* w, uint64_t value, char separator)
{
  if (w->used + 24 > w->capacity)
    flush(w);
  char digits[20];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  while (n)
    w->data[w->used++] = digits[--n];
  w->data[w->used++] = separator;
}

static void put_edge(Writer* w, uint32_t source, uint32_t sink, const Slot* e)
{
  put_number(w, source, ' ');
  put_number(w, sink, ' ');
  put_number(w, e->uses, ' ');
  put_number(w, e->versions, '\n');
}

/* Writes the graph of the region (vertices that have edges or work there). */
int pc_write_graph(const char* path)
{
  char temporary[4096];
  snprintf(temporary, sizeof temporary, "%s.partial", path);
  FILE* f = fopen(temporary, "w");
  if (!f)
    return errno;
  unsigned char* used = pc_alloc(vertex_count);
  for (uint32_t v = 1; v < vertex_count; ++v)
    if (bucket_of[v]) {
      const Slot* slot = buckets[bucket_of[v]].slot;
      for (int k = 0; k < BUCKET_SLOTS && slot[k].source; ++k)
        used[slot[k].source] = used[v] = 1;
    }
  for (uint64_t i = 0; i < edge_capacity; ++i)
    if (edges[i].key) {
      used[edges[i].key >> 32] = 1;
      used[edges[i].key & PC_VERTEX_MASK] = 1;
    }
  uint32_t listed = 0, outputs = 0;
  for (uint32_t v = 1; v < vertex_count; ++v) {
    if (pc_vertices[v].work)
      used[v] = 1;
    listed += used[v];
    outputs += pc_vertices[v].live > 0 && pc_vertices[v].version > 0;
  }
  fprintf(f, "perfcast-comm-graph 2\n");
  fprintf(f, "region %s %d %llu\n", pc_region_name ? pc_region_name : "-", pc_region_matched, pc_region_calls);
  fprintf(f, "counts %llu %llu %llu %u %llu %llu %zu\n", pc_values, pc_copies, pc_inputs, outputs, pc_lost_flows,
          pc_unhandled, pc_peak_bytes());
  Writer w = {f, pc_alloc(1u << 20), 0, 1u << 20, 0};
  /* the heap blocks the listed vertices live in: id and size in bytes */
  unsigned char* array_used = pc_alloc(pc_array_count);
  uint32_t arrays = 0;
  for (uint32_t v = 1; v < vertex_count; ++v)
    if (used[v] && pc_vertices[v].array && !array_used[pc_vertices[v].array]) {
      array_used[pc_vertices[v].array] = 1;
      ++arrays;
    }
  put_text(&w, "arrays ");
  put_number(&w, arrays, '\n');
  for (uint32_t a = 1; a < pc_array_count; ++a)
    if (array_used[a]) {
      put_number(&w, a, ' ');
      put_number(&w, pc_array_bytes[a], '\n');
    }
  put_text(&w, "vertices ");
  put_number(&w, listed, '\n');
  for (uint32_t v = 1; v < vertex_count; ++v)
    if (used[v]) {
      put_number(&w, v, ' ');
      put_number(&w, pc_vertices[v].bytes, ' ');
      put_number(&w, pc_vertices[v].work, ' ');
      put_number(&w, pc_vertices[v].flags, ' ');
      put_number(&w, pc_vertices[v].array, ' ');
      put_number(&w, pc_vertices[v].offset, '\n');
    }
  put_text(&w, "edges ");
  put_number(&w, edge_count, '\n');
  for (uint32_t v = 1; v < vertex_count; ++v)
    if (bucket_of[v]) {
      const Slot* slot = buckets[bucket_of[v]].slot;
      for (int k = 0; k < BUCKET_SLOTS && slot[k].source; ++k)
        put_edge(&w, slot[k].source, v, &slot[k]);
    }
  for (uint64_t i = 0; i < edge_capacity; ++i)
    if (edges[i].key)
      put_edge(&w, (uint32_t)(edges[i].key >> 32), (uint32_t)(edges[i].key & PC_VERTEX_MASK), &edges[i].edge);
  put_text(&w, "end\n");
  flush(&w);
  int failed = ferror(f) || w.failed;
  if (fclose(f) != 0 || failed)
    return EIO;
  return rename(temporary, path) == 0 ? 0 : errno;
}
