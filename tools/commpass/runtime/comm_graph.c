/* The value communication graph: vertices (compressed runs of values) and
 * weighted edges source -> sink, with the number of uses and the number of
 * distinct source values used (what a remote reader must receive once each). */
#include "comm_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

PcVertex* pc_vertices;
static uint32_t vertex_count = 1, vertex_capacity; /* vertex 0 means "no value" */

typedef struct {
  uint64_t key; /* source << 32 | sink; 0: empty */
  uint64_t uses;
  uint32_t versions;
  uint32_t last_version;
} Edge;
static Edge* edges;
static uint64_t edge_capacity, edge_count;

uint32_t pc_new_vertex(void)
{
  if (vertex_count >= vertex_capacity) {
    uint32_t grown = vertex_capacity ? vertex_capacity * 2 : 1u << 16;
    pc_vertices = pc_realloc(pc_vertices, vertex_capacity * sizeof(PcVertex), grown * sizeof(PcVertex));
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
  uint64_t grown = edge_capacity ? edge_capacity * 2 : 1u << 16;
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

void pc_add_edge(uint32_t source, uint32_t sink)
{
  if (source == sink || !source)
    return;
  if ((edge_count + 1) * 10 > edge_capacity * 7)
    grow_edges();
  uint64_t key = (uint64_t)source << 32 | sink;
  uint64_t s = slot_of(key, edge_capacity);
  while (edges[s].key && edges[s].key != key)
    s = (s + 1) & (edge_capacity - 1);
  Edge* e = &edges[s];
  if (!e->key) {
    e->key = key;
    ++edge_count;
  }
  ++e->uses;
  uint32_t version = pc_vertices[source].version;
  if (e->versions == 0 || e->last_version != version) {
    ++e->versions;
    e->last_version = version;
  }
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
  fprintf(f, "perfcast-comm-graph 1\n");
  fprintf(f, "region %s %d %llu\n", pc_region_name ? pc_region_name : "-", pc_region_matched, pc_region_calls);
  fprintf(f, "counts %llu %llu %llu %u %llu %llu %zu\n", pc_values, pc_copies, pc_inputs, outputs, pc_lost_flows,
          pc_unhandled, pc_peak_bytes());
  fprintf(f, "vertices %u\n", listed);
  for (uint32_t v = 1; v < vertex_count; ++v)
    if (used[v])
      fprintf(f, "%u %u %u %u\n", v, pc_vertices[v].bytes, pc_vertices[v].work, pc_vertices[v].flags);
  fprintf(f, "edges %llu\n", (unsigned long long)edge_count);
  for (uint64_t i = 0; i < edge_capacity; ++i)
    if (edges[i].key)
      fprintf(f, "%llu %llu %llu %u\n", (unsigned long long)(edges[i].key >> 32),
              (unsigned long long)(edges[i].key & PC_VERTEX_MASK), (unsigned long long)edges[i].uses,
              edges[i].versions);
  fprintf(f, "end\n");
  int failed = ferror(f);
  if (fclose(f) != 0 || failed)
    return EIO;
  return rename(temporary, path) == 0 ? 0 : errno;
}
