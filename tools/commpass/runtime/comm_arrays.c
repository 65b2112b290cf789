/* Where values live: the heap blocks the program allocates (the pass reports
 * each malloc, calloc, realloc, aligned_alloc and operator new), so that every
 * vertex can name the array it was created in and its byte offset there.
 * perfcast uses this to try block decompositions of dense arrays (beyond the
 * paper). A new block overlapping recorded ones replaces them (the old blocks
 * were freed), so free needs no hook. Blocks below 64 bytes are not arrays
 * worth decomposing and are not recorded. */
#include "comm_runtime.h"

#include <string.h>

typedef struct {
  uintptr_t base;
  uint64_t bytes;
  uint32_t id;
} Block;

static Block* blocks; /* live records, sorted by base */
static size_t block_count, block_capacity;
uint64_t* pc_array_bytes; /* per array id (1, 2, ...), the size of the block */
uint32_t pc_array_count = 1;   /* array 0 means "not in a recorded block" */
static uint32_t array_capacity;

/* index of the first block whose end lies after address */
static size_t first_after(uintptr_t address)
{
  size_t lo = 0, hi = block_count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (blocks[mid].base + blocks[mid].bytes <= address)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void __pc_allocation(void* pointer, uint64_t bytes)
{
  uintptr_t base = (uintptr_t)pointer;
  if (!pointer || bytes < 64)
    return;
  if (pc_array_count >= array_capacity) {
    uint32_t grown = array_capacity ? array_capacity * 2 : 256;
    pc_array_bytes = pc_realloc(pc_array_bytes, array_capacity * sizeof(uint64_t), grown * sizeof(uint64_t));
    array_capacity = grown;
  }
  uint32_t id = pc_array_count++;
  pc_array_bytes[id] = bytes;
  size_t at = first_after(base), end = at;
  while (end < block_count && blocks[end].base < base + bytes)
    ++end; /* overlapped: freed since */
  if (end == at && block_count == block_capacity) {
    size_t grown = block_capacity ? block_capacity * 2 : 256;
    blocks = pc_realloc(blocks, block_capacity * sizeof(Block), grown * sizeof(Block));
    block_capacity = grown;
  }
  if (end == at)
    memmove(blocks + at + 1, blocks + at, (block_count - at) * sizeof(Block));
  else if (end > at + 1)
    memmove(blocks + at + 1, blocks + end, (block_count - end) * sizeof(Block));
  block_count = block_count + 1 - (end - at);
  blocks[at].base = base;
  blocks[at].bytes = bytes;
  blocks[at].id = id;
}

void pc_vertex_home(uint32_t vertex, uintptr_t address)
{
  size_t at = first_after(address);
  PcVertex* v = &pc_vertices[vertex];
  v->array = 0;
  v->offset = 0;
  if (at < block_count && blocks[at].base <= address) {
    v->array = blocks[at].id;
    v->offset = address - blocks[at].base;
  }
}
