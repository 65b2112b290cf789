/* Unstructured-mesh kernel with indirect indexing, sequential: the
 * gather-scatter of a hydrodynamics code on the shuffled quadrilateral mesh
 * of mesh.h. Each step every element gathers its four node values into an
 * element value (a "pressure"), the elements scatter-add it into per-node
 * sums (a "force"), and every node relaxes towards its average. step() is
 * the region perfcast comm analyses. Usage: mesh_seq NX NY STEPS */
#include "mesh.h"

#include <stdio.h>

static void step(const Mesh* m, double* u, double* p, double* f, const double* inv_count, double dt)
{
  for (int e = 0; e < m->elements; ++e) {
    const int* n = &m->elem[4 * e];
    p[e] = 0.25 * (u[n[0]] + u[n[1]] + u[n[2]] + u[n[3]]);
  }
  for (int n = 0; n < m->nodes; ++n)
    f[n] = 0;
  for (int e = 0; e < m->elements; ++e)
    for (int c = 0; c < 4; ++c)
      f[m->elem[4 * e + c]] += p[e];
  for (int n = 0; n < m->nodes; ++n)
    u[n] += dt * (f[n] * inv_count[n] - u[n]);
}

int main(int argc, char** argv)
{
  int nx = argc > 1 ? atoi(argv[1]) : 128;
  int ny = argc > 2 ? atoi(argv[2]) : 128;
  int steps = argc > 3 ? atoi(argv[3]) : 10;
  if (nx < 1 || ny < 1 || steps < 1) {
    fprintf(stderr, "usage: mesh_seq NX NY STEPS\n");
    return 1;
  }
  Mesh m = mesh_make(nx, ny);
  double* u = malloc(sizeof(double) * m.nodes);
  double* f = malloc(sizeof(double) * m.nodes);
  double* inv_count = malloc(sizeof(double) * m.nodes);
  double* p = malloc(sizeof(double) * m.elements);
  mesh_initial(&m, u, inv_count);
  for (int s = 0; s < steps; ++s)
    step(&m, u, p, f, inv_count, 0.5);
  double sum = 0;
  for (int n = 0; n < m.nodes; ++n)
    sum += u[n] * m.x[n];
  printf("mesh_seq %dx%d steps=%d sum=%.6f\n", nx, ny, steps, sum);
  free(u);
  free(f);
  free(inv_count);
  free(p);
  mesh_free(&m);
  return 0;
}
