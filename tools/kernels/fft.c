/* perfcast-kernel-fft SIZE: a forward 3-D complex FFT of a SIZE^3 grid (SIZE
 * a power of two), as NPB FT: radix-2 transforms along x and y in each rank's
 * z-slab, an all-to-all transpose to y-slabs, then transforms along z.
 * Check: the input exp(2 pi i (x + 2 y + 3 z) / n) + 1/2 has the closed-form
 * transform n^3 at frequency (1, 2, 3) mod n plus n^3 / 2 at (0, 0, 0) and
 * zero elsewhere; every coefficient must match to 1e-9 n^3. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static long n, z0, z1;
static double *input, *work, *transposed, *line, *twiddle;

/* In-place radix-2 decimation-in-time FFT of n complex values at `data`. */
static void fft_line(double* data)
{
  for (long i = 1, j = 0; i < n; ++i) { /* bit-reversal permutation */
    long bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      double re = data[2 * i], im = data[2 * i + 1];
      data[2 * i] = data[2 * j];
      data[2 * i + 1] = data[2 * j + 1];
      data[2 * j] = re;
      data[2 * j + 1] = im;
    }
  }
  for (long half = 1; half < n; half *= 2)
    for (long start = 0; start < n; start += 2 * half)
      for (long k = 0; k < half; ++k) {
        const long t = k * (n / (2 * half)); /* exp(-2 pi i k / (2 half)) = twiddle[t] */
        const double wr = twiddle[2 * t], wi = twiddle[2 * t + 1];
        double* a = data + 2 * (start + k);
        double* b = data + 2 * (start + k + half);
        const double br = b[0] * wr - b[1] * wi, bi = b[0] * wi + b[1] * wr;
        b[0] = a[0] - br;
        b[1] = a[1] - bi;
        a[0] += br;
        a[1] += bi;
      }
}

/* Transforms every line of `planes` planes whose points are `stride` doubles apart. */
static void fft_strided(double* grid, long planes, long lines, long line_step, long stride)
{
  for (long p = 0; p < planes; ++p)
    for (long l = 0; l < lines; ++l) {
      double* first = grid + p * n * n * 2 + l * line_step;
      for (long e = 0; e < n; ++e) {
        line[2 * e] = first[e * stride];
        line[2 * e + 1] = first[e * stride + 1];
      }
      fft_line(line);
      for (long e = 0; e < n; ++e) {
        first[e * stride] = line[2 * e];
        first[e * stride + 1] = line[2 * e + 1];
      }
    }
}

static void transform(void)
{
  memcpy(work, input, sizeof(double) * (size_t)((z1 - z0) * n * n * 2));
  for (long p = 0; p < (z1 - z0) * n; ++p) fft_line(work + p * n * 2); /* along x: contiguous */
  fft_strided(work, z1 - z0, n, 2, 2 * n);                              /* along y */
  kc_transpose(work, transposed, n, 2);
  fft_strided(transposed, z1 - z0, n, 2, 2 * n); /* along z, now the middle index */
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "fft", 2);
  if (n & (n - 1)) kc_bad_size("expected a power of two");
  if (n < kc_procs) kc_bad_size("expected at least one plane per process");
  kc_block(n, kc_rank, kc_procs, &z0, &z1);
  const size_t local = (size_t)((z1 - z0) * n * n * 2);
  input = kc_alloc(sizeof(double) * local);
  work = kc_alloc(sizeof(double) * local);
  transposed = kc_alloc(sizeof(double) * local);
  line = kc_alloc(sizeof(double) * (size_t)(2 * n));
  twiddle = kc_alloc(sizeof(double) * (size_t)n);
  const double pi = acos(-1.0);
  for (long t = 0; t < n / 2; ++t) {
    twiddle[2 * t] = cos(-2 * pi * (double)t / (double)n);
    twiddle[2 * t + 1] = sin(-2 * pi * (double)t / (double)n);
  }
  const long fx = 1 % n, fy = 2 % n, fz = 3 % n;
  for (long z = z0; z < z1; ++z)
    for (long y = 0; y < n; ++y)
      for (long x = 0; x < n; ++x) {
        const double phase = 2 * pi * (double)((fx * x + fy * y + fz * z) % n) / (double)n;
        double* point = input + (((z - z0) * n + y) * n + x) * 2;
        point[0] = cos(phase) + 0.5;
        point[1] = sin(phase);
      }
  double seconds = kc_time(transform);
  if (kc_corrupt() && z1 > z0) transposed[0] += 1e-3 * (double)(n * n * n);

  const double volume = (double)(n * n * n);
  double worst = 0;
  for (long v = z0; v < z1; ++v) /* layout [v][w][u]: v is this rank's y-frequency block */
    for (long w = 0; w < n; ++w)
      for (long u = 0; u < n; ++u) {
        double expected = (u == fx && v == fy && w == fz) ? volume : 0;
        if (u == 0 && v == 0 && w == 0) expected += volume / 2;
        const double* c = transposed + (((v - z0) * n + w) * n + u) * 2;
        worst = fmax(worst, hypot(c[0] - expected, c[1]) / volume);
      }
  char why[160];
  snprintf(why, sizeof why, "a coefficient is off by %.3e n^3 from the closed form (expected below 1e-9)", worst);
  return kc_finish(seconds, worst < 1e-9, why);
}
