/* Unstructured-mesh kernel, MPI: the computation of mesh_seq.c with the
 * elements split by their centres into a pr x pc grid of rectangles (a
 * geometric partition, MPI_Dims_create). A node belongs to the process of
 * the lowest-numbered element around it; the other processes whose elements
 * use it hold a ghost copy. Set-up: each process lists its ghosts by owner
 * and tells the owners (MPI_Alltoall, MPI_Alltoallv). Each step: owners
 * send node values to the ghosts (gather), elements are computed locally,
 * partial node sums of ghosts go back to their owners (scatter-add), and
 * owners update their nodes. Usage: mpirun -np P mesh_mpi NX NY STEPS */
#include "mesh.h"

#include <mpi.h>
#include <stdio.h>

static int part_of(int n, int parts, int i)
{
  int base = n / parts, extra = n % parts, cut = extra * (base + 1);
  return i < cut ? i / (base + 1) : extra + (i - cut) / base;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int nx = argc > 1 ? atoi(argv[1]) : 128;
  int ny = argc > 2 ? atoi(argv[2]) : 128;
  int steps = argc > 3 ? atoi(argv[3]) : 10;
  int size, rank, dims[2] = {0, 0};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Dims_create(size, 2, dims);
  Mesh m = mesh_make(nx, ny);
  double* u = malloc(sizeof(double) * m.nodes); /* indexed by global node; only used entries matter */
  double* f = malloc(sizeof(double) * m.nodes);
  double* inv_count = malloc(sizeof(double) * m.nodes);
  mesh_initial(&m, u, inv_count);
  /* element owners from the element centres; node owners from their first element */
  int* elem_owner = malloc(sizeof(int) * m.elements);
  int* node_owner = malloc(sizeof(int) * m.nodes);
  for (int n = 0; n < m.nodes; ++n)
    node_owner[n] = -1;
  for (int e = 0; e < m.elements; ++e) {
    const int* n = &m.elem[4 * e];
    double cx = 0.25 * (m.x[n[0]] + m.x[n[1]] + m.x[n[2]] + m.x[n[3]]);
    double cy = 0.25 * (m.y[n[0]] + m.y[n[1]] + m.y[n[2]] + m.y[n[3]]);
    elem_owner[e] = part_of(ny, dims[0], (int)cy) * dims[1] + part_of(nx, dims[1], (int)cx);
    for (int c = 0; c < 4; ++c)
      if (node_owner[n[c]] < 0)
        node_owner[n[c]] = elem_owner[e];
  }
  /* local elements, owned nodes and ghost nodes (grouped by owner) */
  int* mine = malloc(sizeof(int) * m.elements);
  int elements = 0;
  for (int e = 0; e < m.elements; ++e)
    if (elem_owner[e] == rank)
      mine[elements++] = e;
  char* used = calloc((size_t)m.nodes, 1);
  for (int k = 0; k < elements; ++k)
    for (int c = 0; c < 4; ++c)
      used[m.elem[4 * mine[k] + c]] = 1;
  int* owned = malloc(sizeof(int) * m.nodes);
  int nodes = 0;
  for (int n = 0; n < m.nodes; ++n)
    if (node_owner[n] == rank)
      owned[nodes++] = n;
  int* want_count = calloc((size_t)size, sizeof(int));
  for (int n = 0; n < m.nodes; ++n)
    if (used[n] && node_owner[n] != rank)
      ++want_count[node_owner[n]];
  int* want_offset = malloc(sizeof(int) * size);
  int* give_offset = malloc(sizeof(int) * size);
  int* give_count = malloc(sizeof(int) * size);
  MPI_Alltoall(want_count, 1, MPI_INT, give_count, 1, MPI_INT, MPI_COMM_WORLD);
  int wants = 0, gives = 0;
  for (int q = 0; q < size; ++q) {
    want_offset[q] = wants;
    give_offset[q] = gives;
    wants += want_count[q];
    gives += give_count[q];
  }
  int* want = malloc(sizeof(int) * (wants + 1));
  int* give = malloc(sizeof(int) * (gives + 1));
  int* fill = calloc((size_t)size, sizeof(int));
  for (int n = 0; n < m.nodes; ++n)
    if (used[n] && node_owner[n] != rank) {
      int q = node_owner[n];
      want[want_offset[q] + fill[q]++] = n;
    }
  MPI_Alltoallv(want, want_count, want_offset, MPI_INT, give, give_count, give_offset, MPI_INT, MPI_COMM_WORLD);
  double* p = malloc(sizeof(double) * (elements + 1));
  double* inbuf = malloc(sizeof(double) * (wants + 1));
  double* outbuf = malloc(sizeof(double) * (gives + 1));
  MPI_Request* req = malloc(sizeof(MPI_Request) * 2 * size);
  for (int s = 0; s < steps; ++s) {
    /* gather: owners send node values to the processes holding ghosts */
    int k = 0;
    for (int q = 0; q < size; ++q) {
      if (want_count[q])
        MPI_Irecv(&inbuf[want_offset[q]], want_count[q], MPI_DOUBLE, q, 0, MPI_COMM_WORLD, &req[k++]);
      if (give_count[q]) {
        for (int g = give_offset[q]; g < give_offset[q] + give_count[q]; ++g)
          outbuf[g] = u[give[g]];
        MPI_Isend(&outbuf[give_offset[q]], give_count[q], MPI_DOUBLE, q, 0, MPI_COMM_WORLD, &req[k++]);
      }
    }
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    for (int g = 0; g < wants; ++g)
      u[want[g]] = inbuf[g];
    for (int j = 0; j < elements; ++j) {
      const int* n = &m.elem[4 * mine[j]];
      p[j] = 0.25 * (u[n[0]] + u[n[1]] + u[n[2]] + u[n[3]]);
    }
    for (int n = 0; n < m.nodes; ++n)
      if (used[n] || node_owner[n] == rank)
        f[n] = 0;
    for (int j = 0; j < elements; ++j)
      for (int c = 0; c < 4; ++c)
        f[m.elem[4 * mine[j] + c]] += p[j];
    /* scatter-add: partial sums of ghost nodes go back to their owners */
    k = 0;
    for (int q = 0; q < size; ++q) {
      if (give_count[q])
        MPI_Irecv(&outbuf[give_offset[q]], give_count[q], MPI_DOUBLE, q, 1, MPI_COMM_WORLD, &req[k++]);
      if (want_count[q]) {
        for (int g = want_offset[q]; g < want_offset[q] + want_count[q]; ++g)
          inbuf[g] = f[want[g]];
        MPI_Isend(&inbuf[want_offset[q]], want_count[q], MPI_DOUBLE, q, 1, MPI_COMM_WORLD, &req[k++]);
      }
    }
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    for (int g = 0; g < gives; ++g)
      f[give[g]] += outbuf[g];
    for (int j = 0; j < nodes; ++j) {
      int n = owned[j];
      u[n] += 0.5 * (f[n] * inv_count[n] - u[n]);
    }
  }
  double local = 0, sum = 0;
  for (int j = 0; j < nodes; ++j)
    local += u[owned[j]] * m.x[owned[j]];
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mesh_mpi %dx%d steps=%d sum=%.6f\n", nx, ny, steps, sum);
  free(u);
  free(f);
  free(inv_count);
  free(elem_owner);
  free(node_owner);
  free(mine);
  free(used);
  free(owned);
  free(want_count);
  free(want_offset);
  free(give_offset);
  free(give_count);
  free(want);
  free(give);
  free(fill);
  free(p);
  free(inbuf);
  free(outbuf);
  free(req);
  mesh_free(&m);
  MPI_Finalize();
  return 0;
}
