/* The unstructured mesh both mesh_seq.c and mesh_mpi.c read: an nx x ny
 * quadrilateral mesh whose nodes and elements are numbered in a shuffled
 * order (a fixed-seed generator), so that it is used only through its lists:
 * element e has nodes elem[4e .. 4e+3]; node m lies at (x[m], y[m]). */
#ifndef PERFCAST_EXAMPLE_MESH_H
#define PERFCAST_EXAMPLE_MESH_H

#include <stdlib.h>

typedef struct {
  int nodes, elements;
  int* elem;  /* 4 node numbers per element */
  double* x;  /* node coordinates */
  double* y;
} Mesh;

static unsigned mesh_random(unsigned* state)
{
  *state = *state * 1103515245u + 12345u;
  return (*state >> 8) & 0xffffffu;
}

/* a random permutation of 0..n-1 (Fisher-Yates) */
static int* mesh_shuffle(int n, unsigned* state)
{
  int* p = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i)
    p[i] = i;
  for (int i = n - 1; i > 0; --i) {
    int j = (int)(mesh_random(state) % (unsigned)(i + 1)), t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

static Mesh mesh_make(int nx, int ny)
{
  Mesh m;
  unsigned state = 2024;
  m.nodes = (nx + 1) * (ny + 1);
  m.elements = nx * ny;
  int* node_number = mesh_shuffle(m.nodes, &state);   /* grid point -> node */
  int* elem_number = mesh_shuffle(m.elements, &state); /* grid cell -> element */
  m.elem = malloc(sizeof(int) * 4 * m.elements);
  m.x = malloc(sizeof(double) * m.nodes);
  m.y = malloc(sizeof(double) * m.nodes);
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      int node = node_number[j * (nx + 1) + i];
      m.x[node] = i;
      m.y[node] = j;
    }
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      int* e = &m.elem[4 * elem_number[j * nx + i]];
      e[0] = node_number[j * (nx + 1) + i];
      e[1] = node_number[j * (nx + 1) + i + 1];
      e[2] = node_number[(j + 1) * (nx + 1) + i + 1];
      e[3] = node_number[(j + 1) * (nx + 1) + i];
    }
  free(node_number);
  free(elem_number);
  return m;
}

/* the initial node values and the reciprocal of each node's element count */
static void mesh_initial(const Mesh* m, double* u, double* inv_count)
{
  for (int n = 0; n < m->nodes; ++n) {
    u[n] = m->x[n] < 1.0 ? 100.0 : 0.0; /* hot left edge */
    inv_count[n] = 0;
  }
  for (int k = 0; k < 4 * m->elements; ++k)
    inv_count[m->elem[k]] += 1.0;
  for (int n = 0; n < m->nodes; ++n)
    inv_count[n] = 1.0 / inv_count[n];
}

static void mesh_free(Mesh* m)
{
  free(m->elem);
  free(m->x);
  free(m->y);
}

#endif
