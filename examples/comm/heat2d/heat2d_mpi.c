/* 2-D heat diffusion, MPI: the same computation as heat2d_seq.c on a 2-D
 * block decomposition (MPI_Dims_create); each step every process sends its
 * edge rows and columns to its four neighbours (no corners: the stencil has
 * 5 points). Usage: mpirun -np P heat2d_mpi N STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* the first index and count of block b of n cells cut into parts blocks */
static void block(int n, int parts, int b, int* first, int* count)
{
  int base = n / parts, extra = n % parts;
  *count = base + (b < extra);
  *first = b * base + (b < extra ? b : extra);
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  int size, rank, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_rank(grid, &rank);
  MPI_Cart_coords(grid, rank, 2, coords);
  int up, down, left, right;
  MPI_Cart_shift(grid, 0, 1, &up, &down);
  MPI_Cart_shift(grid, 1, 1, &left, &right);
  int i0, rows, j0, cols;
  block(n, dims[0], coords[0], &i0, &rows);
  block(n, dims[1], coords[1], &j0, &cols);
  int w = cols + 2;
  double* u = malloc(sizeof(double) * (rows + 2) * w);
  double* v = malloc(sizeof(double) * (rows + 2) * w);
  for (int i = 0; i < rows + 2; ++i)
    for (int j = 0; j < w; ++j) {
      int gi = i0 + i; /* global row, 0 is the hot top boundary */
      double t = gi == 0 ? 100.0 : 0.0;
      u[i * w + j] = t;
      v[i * w + j] = t;
    }
  MPI_Datatype column;
  MPI_Type_vector(rows, 1, w, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  for (int s = 0; s < steps; ++s) {
    MPI_Request req[8];
    int k = 0;
    MPI_Irecv(&u[0 * w + 1], cols, MPI_DOUBLE, up, 0, grid, &req[k++]);
    MPI_Irecv(&u[(rows + 1) * w + 1], cols, MPI_DOUBLE, down, 1, grid, &req[k++]);
    MPI_Irecv(&u[1 * w + 0], 1, column, left, 2, grid, &req[k++]);
    MPI_Irecv(&u[1 * w + cols + 1], 1, column, right, 3, grid, &req[k++]);
    MPI_Isend(&u[1 * w + 1], cols, MPI_DOUBLE, up, 1, grid, &req[k++]);
    MPI_Isend(&u[rows * w + 1], cols, MPI_DOUBLE, down, 0, grid, &req[k++]);
    MPI_Isend(&u[1 * w + 1], 1, column, left, 3, grid, &req[k++]);
    MPI_Isend(&u[1 * w + cols], 1, column, right, 2, grid, &req[k++]);
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= rows; ++i)
      for (int j = 1; j <= cols; ++j)
        v[i * w + j] = u[i * w + j] + 0.2 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] +
                                              u[i * w + j + 1] - 4.0 * u[i * w + j]);
    double* t = u;
    u = v;
    v = t;
  }
  double local = 0, sum = 0;
  for (int i = 1; i <= rows; ++i)
    for (int j = 1; j <= cols; ++j)
      local += u[i * w + j];
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
  if (rank == 0)
    printf("heat2d_mpi n=%d steps=%d sum=%.6f\n", n, steps, sum);
  MPI_Type_free(&column);
  free(u);
  free(v);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
