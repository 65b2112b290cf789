/* Sparse matrix-vector product in CSR, MPI: the matrix of spmv_seq.c cut
 * into blocks of consecutive rows (1-D), each process owning its rows and
 * the same rows of x. Set-up: each process lists the remote columns its rows
 * read and tells their owners (MPI_Alltoall, MPI_Alltoallv). Each step it
 * sends the owners' x values the others asked for and receives its own
 * (point-to-point), then multiplies its rows. With offsets up to 9 and
 * blocks of at least 9 rows, a block reads 9 values from each neighbour.
 * Usage: mpirun -np P spmv_mpi N STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const int kOffsets[] = {-9, -4, -1, 0, 1, 4, 9};
#define NOFFSETS 7

static void block(int n, int parts, int b, int* first, int* count)
{
  int base = n / parts, extra = n % parts;
  *count = base + (b < extra);
  *first = b * base + (b < extra ? b : extra);
}

static int owner_of(int n, int parts, int j)
{
  int base = n / parts, extra = n % parts, cut = extra * (base + 1);
  return j < cut ? j / (base + 1) : extra + (j - cut) / base;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int r0, rows;
  block(n, size, rank, &r0, &rows);
  /* local rows with global column indices, built as spmv_seq.c builds them */
  int* rowptr = malloc(sizeof(int) * (rows + 1));
  int* col = malloc(sizeof(int) * rows * NOFFSETS);
  double* val = malloc(sizeof(double) * rows * NOFFSETS);
  int nnz = 0;
  for (int i = r0; i < r0 + rows; ++i) {
    rowptr[i - r0] = nnz;
    double total = 0;
    for (int d = 0; d < NOFFSETS; ++d) {
      int j = i + kOffsets[d];
      if (j < 0 || j >= n)
        continue;
      col[nnz] = j;
      val[nnz] = 1.0 + (double)((i + 3 * j) % 5);
      total += val[nnz];
      ++nnz;
    }
    for (int k = rowptr[i - r0]; k < nnz; ++k)
      val[k] /= total;
  }
  rowptr[rows] = nnz;
  /* the remote columns read, in order of owner then column (a column is
   * listed once); ghost g of the local vector x lives at index rows + g */
  char* needed = calloc((size_t)n, 1);
  for (int k = 0; k < nnz; ++k)
    if (col[k] < r0 || col[k] >= r0 + rows)
      needed[col[k]] = 1;
  int* ghost_index = malloc(sizeof(int) * n);
  int* want = malloc(sizeof(int) * n);
  int* want_count = calloc((size_t)size, sizeof(int));
  int ghosts = 0;
  for (int j = 0; j < n; ++j)
    if (needed[j]) {
      ghost_index[j] = rows + ghosts;
      want[ghosts++] = j;
      ++want_count[owner_of(n, size, j)];
    }
  for (int k = 0; k < nnz; ++k)
    col[k] = col[k] >= r0 && col[k] < r0 + rows ? col[k] - r0 : ghost_index[col[k]];
  int* give_count = malloc(sizeof(int) * size);
  MPI_Alltoall(want_count, 1, MPI_INT, give_count, 1, MPI_INT, MPI_COMM_WORLD);
  int* want_offset = malloc(sizeof(int) * size);
  int* give_offset = malloc(sizeof(int) * size);
  int gives = 0;
  for (int q = 0, w = 0; q < size; ++q) {
    want_offset[q] = w;
    give_offset[q] = gives;
    w += want_count[q];
    gives += give_count[q];
  }
  int* give = malloc(sizeof(int) * (gives + 1));
  MPI_Alltoallv(want, want_count, want_offset, MPI_INT, give, give_count, give_offset, MPI_INT, MPI_COMM_WORLD);
  double* x = malloc(sizeof(double) * (rows + ghosts));
  double* y = malloc(sizeof(double) * (rows + ghosts));
  double* sendbuf = malloc(sizeof(double) * (gives + 1));
  for (int i = 0; i < rows; ++i)
    x[i] = (double)((r0 + i) % 17) / 17.0;
  MPI_Request* req = malloc(sizeof(MPI_Request) * 2 * size);
  for (int s = 0; s < steps; ++s) {
    int k = 0;
    for (int q = 0; q < size; ++q) {
      if (want_count[q])
        MPI_Irecv(&x[rows + want_offset[q]], want_count[q], MPI_DOUBLE, q, 0, MPI_COMM_WORLD, &req[k++]);
      if (give_count[q]) {
        for (int g = give_offset[q]; g < give_offset[q] + give_count[q]; ++g)
          sendbuf[g] = x[give[g] - r0];
        MPI_Isend(&sendbuf[give_offset[q]], give_count[q], MPI_DOUBLE, q, 0, MPI_COMM_WORLD, &req[k++]);
      }
    }
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < rows; ++i) {
      double t = 0;
      for (int kk = rowptr[i]; kk < rowptr[i + 1]; ++kk)
        t += val[kk] * x[col[kk]];
      y[i] = t;
    }
    double* t = x;
    x = y;
    y = t;
  }
  double local = 0, sum = 0;
  for (int i = 0; i < rows; ++i)
    local += x[i] * (double)((r0 + i) % 7);
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("spmv_mpi n=%d steps=%d sum=%.6f\n", n, steps, sum);
  free(rowptr);
  free(col);
  free(val);
  free(needed);
  free(ghost_index);
  free(want);
  free(want_count);
  free(give_count);
  free(want_offset);
  free(give_offset);
  free(give);
  free(x);
  free(y);
  free(sendbuf);
  free(req);
  MPI_Finalize();
  return 0;
}
