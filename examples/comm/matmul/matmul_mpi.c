/* Dense matrix multiply, MPI: C = A B on a pr x pc process grid
 * (MPI_Dims_create), every matrix cut into the same 2-D blocks. Process
 * (r, c) owns blocks A_rc, B_rc and C_rc; C_rc needs block row r of A and
 * block column c of B, so, as in SUMMA, each process sends its A block to
 * the others of its grid row and its B block to the others of its grid
 * column (point-to-point), then multiplies the two panels. Per run the
 * processes send n*n*(pc-1) + n*n*(pr-1) values.
 * Usage: mpirun -np P matmul_mpi N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* the first index and count of block b of n cut into parts blocks */
static void block(int n, int parts, int b, int* first, int* count)
{
  int base = n / parts, extra = n % parts;
  *count = base + (b < extra);
  *first = b * base + (b < extra ? b : extra);
}

static double a_at(int i, int j) { return (double)((i * 7 + j * 3) % 11) / 11.0 - 0.5; }
static double b_at(int i, int j) { return (double)((i * 5 + j * 2) % 13) / 13.0; }

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int size, rank, dims[2] = {0, 0};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Dims_create(size, 2, dims);
  int pr = dims[0], pc = dims[1], r = rank / pc, c = rank % pc;
  int i0, rows, j0, cols;
  block(n, pr, r, &i0, &rows);
  block(n, pc, c, &j0, &cols);
  /* the panels: A rows i0.. (rows x n, row-major), B columns j0.. (n x cols) */
  double* apanel = malloc(sizeof(double) * rows * n);
  double* bpanel = malloc(sizeof(double) * n * cols);
  /* own blocks, packed contiguously: A_rc (rows x cols) and B_rc (rows x cols) */
  double* ablock = malloc(sizeof(double) * rows * cols);
  double* bblock = malloc(sizeof(double) * rows * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      ablock[i * cols + j] = a_at(i0 + i, j0 + j);
      bblock[i * cols + j] = b_at(i0 + i, j0 + j);
    }
  /* receive buffers: the A blocks of the row peers, the B blocks of the column peers */
  double** arecv = malloc(sizeof(double*) * pc);
  double** brecv = malloc(sizeof(double*) * pr);
  MPI_Request* req = malloc(sizeof(MPI_Request) * 2 * (pr + pc));
  int k = 0;
  for (int q = 0; q < pc; ++q) {
    int f, w;
    block(n, pc, q, &f, &w);
    arecv[q] = q == c ? ablock : malloc(sizeof(double) * rows * w);
    if (q != c) {
      MPI_Irecv(arecv[q], rows * w, MPI_DOUBLE, r * pc + q, 0, MPI_COMM_WORLD, &req[k++]);
      MPI_Isend(ablock, rows * cols, MPI_DOUBLE, r * pc + q, 0, MPI_COMM_WORLD, &req[k++]);
    }
  }
  for (int q = 0; q < pr; ++q) {
    int f, h;
    block(n, pr, q, &f, &h);
    brecv[q] = q == r ? bblock : malloc(sizeof(double) * h * cols);
    if (q != r) {
      MPI_Irecv(brecv[q], h * cols, MPI_DOUBLE, q * pc + c, 1, MPI_COMM_WORLD, &req[k++]);
      MPI_Isend(bblock, rows * cols, MPI_DOUBLE, q * pc + c, 1, MPI_COMM_WORLD, &req[k++]);
    }
  }
  MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
  for (int q = 0; q < pc; ++q) {
    int f, w;
    block(n, pc, q, &f, &w);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < w; ++j)
        apanel[i * n + f + j] = arecv[q][i * w + j];
  }
  for (int q = 0; q < pr; ++q) {
    int f, h;
    block(n, pr, q, &f, &h);
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < cols; ++j)
        bpanel[(f + i) * cols + j] = brecv[q][i * cols + j];
  }
  double local = 0, sum = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double s = 0;
      for (int kk = 0; kk < n; ++kk)
        s += apanel[i * n + kk] * bpanel[kk * cols + j];
      local += s;
    }
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("matmul_mpi n=%d sum=%.6f\n", n, sum);
  for (int q = 0; q < pc; ++q)
    if (q != c)
      free(arecv[q]);
  for (int q = 0; q < pr; ++q)
    if (q != r)
      free(brecv[q]);
  free(arecv);
  free(brecv);
  free(req);
  free(apanel);
  free(bpanel);
  free(ablock);
  free(bblock);
  MPI_Finalize();
  return 0;
}
