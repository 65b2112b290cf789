/* 3-D 7-point stencil, MPI: the computation of stencil3d_seq.c on a 3-D
 * block decomposition (MPI_Dims_create); each step every process sends its
 * six faces (packed) to its neighbours, no edges or corners (7 points).
 * Usage: mpirun -np P stencil3d_mpi N STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void block(int n, int parts, int b, int* first, int* count)
{
  int base = n / parts, extra = n % parts;
  *count = base + (b < extra);
  *first = b * base + (b < extra ? b : extra);
}

/* local array with one ghost layer: extents e[0] x e[1] x e[2] including ghosts */
static int e[3];
#define AT(i, j, k) (((size_t)(i) * e[1] + (size_t)(j)) * e[2] + (size_t)(k))

/* copies face `side` (0 low, 1 high) across dimension d between the array
 * and a buffer: the interior layer when packing, the ghost layer when unpacking */
static int face(double* u, double* buf, int d, int side, int unpack)
{
  int lo[3] = {1, 1, 1}, hi[3] = {e[0] - 2, e[1] - 2, e[2] - 2}, m = 0;
  int layer = unpack ? (side ? e[d] - 1 : 0) : (side ? e[d] - 2 : 1);
  lo[d] = hi[d] = layer;
  for (int i = lo[0]; i <= hi[0]; ++i)
    for (int j = lo[1]; j <= hi[1]; ++j)
      for (int k = lo[2]; k <= hi[2]; ++k) {
        if (unpack)
          u[AT(i, j, k)] = buf[m];
        else
          buf[m] = u[AT(i, j, k)];
        ++m;
      }
  return m;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 32;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  int size, rank, dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 3, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &grid);
  MPI_Comm_rank(grid, &rank);
  MPI_Cart_coords(grid, rank, 3, coords);
  int first[3], count[3], neighbour[3][2];
  for (int d = 0; d < 3; ++d) {
    block(n, dims[d], coords[d], &first[d], &count[d]);
    e[d] = count[d] + 2;
    MPI_Cart_shift(grid, d, 1, &neighbour[d][0], &neighbour[d][1]);
  }
  size_t cells = (size_t)e[0] * e[1] * e[2];
  double* u = malloc(sizeof(double) * cells);
  double* v = malloc(sizeof(double) * cells);
  for (int i = 0; i < e[0]; ++i)
    for (int j = 0; j < e[1]; ++j)
      for (int k = 0; k < e[2]; ++k) {
        double t = first[0] + i == 0 ? 100.0 : 0.0; /* global plane 0 is the hot boundary */
        u[AT(i, j, k)] = t;
        v[AT(i, j, k)] = t;
      }
  int largest = 0;
  for (int d = 0; d < 3; ++d) {
    int f = (int)(cells / (size_t)e[d]);
    largest = f > largest ? f : largest;
  }
  double* out[3][2];
  double* in[3][2];
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 2; ++s) {
      out[d][s] = malloc(sizeof(double) * largest);
      in[d][s] = malloc(sizeof(double) * largest);
    }
  for (int s = 0; s < steps; ++s) {
    MPI_Request req[12];
    int k = 0;
    for (int d = 0; d < 3; ++d)
      for (int side = 0; side < 2; ++side) {
        int other = neighbour[d][side];
        if (other == MPI_PROC_NULL)
          continue;
        int m = face(u, out[d][side], d, side, 0);
        MPI_Irecv(in[d][side], m, MPI_DOUBLE, other, 2 * d + (1 - side), grid, &req[k++]);
        MPI_Isend(out[d][side], m, MPI_DOUBLE, other, 2 * d + side, grid, &req[k++]);
      }
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    for (int d = 0; d < 3; ++d)
      for (int side = 0; side < 2; ++side)
        if (neighbour[d][side] != MPI_PROC_NULL)
          face(u, in[d][side], d, side, 1);
    for (int i = 1; i <= count[0]; ++i)
      for (int j = 1; j <= count[1]; ++j)
        for (int kk = 1; kk <= count[2]; ++kk)
          v[AT(i, j, kk)] = u[AT(i, j, kk)] + 0.1 * (u[AT(i - 1, j, kk)] + u[AT(i + 1, j, kk)] + u[AT(i, j - 1, kk)] +
                                                     u[AT(i, j + 1, kk)] + u[AT(i, j, kk - 1)] + u[AT(i, j, kk + 1)] -
                                                     6.0 * u[AT(i, j, kk)]);
    double* t = u;
    u = v;
    v = t;
  }
  double local = 0, sum = 0;
  for (int i = 1; i <= count[0]; ++i)
    for (int j = 1; j <= count[1]; ++j)
      for (int kk = 1; kk <= count[2]; ++kk)
        local += u[AT(i, j, kk)];
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
  if (rank == 0)
    printf("stencil3d_mpi n=%d steps=%d sum=%.6f\n", n, steps, sum);
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 2; ++s) {
      free(out[d][s]);
      free(in[d][s]);
    }
  free(u);
  free(v);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
