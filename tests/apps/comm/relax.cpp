// A 1-D relaxation in C++ (a class template over std::vector): perfcast-c++
// (clang++-19) builds it; the region is relax, mangled _Z5relax...
#include <cstdio>
#include <vector>

template <class T> struct Grid {
  std::vector<T> cells;
  explicit Grid(int n) : cells(static_cast<std::size_t>(n) + 2, T(0)) {}
  T& operator[](int i) { return cells[static_cast<std::size_t>(i)]; }
};

void relax(Grid<double>& u, Grid<double>& v, int n)
{
  for (int i = 1; i <= n; ++i)
    v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0; // u[i] too: a two-point mean splits into two unlinked chains
}

int main()
{
  const int n = 200, steps = 6;
  Grid<double> a(n), b(n);
  a[0] = 1.0;
  b[0] = 1.0;
  for (int s = 0; s < steps / 2; ++s) {
    relax(a, b, n);
    relax(b, a, n);
  }
  std::printf("relax %g\n", a[1]);
  return 0;
}
