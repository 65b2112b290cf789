#include "net/SmpiFactors.hpp"

#include <array>
#include <utility>

namespace perfcast {

namespace {

// (threshold, value), ascending; the value applies to sizes strictly above the
// threshold, up to the next one (SimGrid's parse_factor / get_*_factor).
constexpr std::array<std::pair<double, double>, 9> kBwFactor{{{0, 0.812084},
                                                              {257, 0.338112},
                                                              {732, 0.341987},
                                                              {1426, 0.608902},
                                                              {3484, 0.77493},
                                                              {5776, 1.08739},
                                                              {9376, 0.58729},
                                                              {15424, 0.697866},
                                                              {65472, 0.940694}}};
constexpr std::array<std::pair<double, double>, 9> kLatFactor{{{0, 2.01467},
                                                               {257, 1.95341},
                                                               {732, 1.9503},
                                                               {1426, 1.61075},
                                                               {3484, 1.88101},
                                                               {5776, 2.18796},
                                                               {9376, 2.59299},
                                                               {15424, 3.48845},
                                                               {65472, 11.6436}}};

template <std::size_t N> double lookup(const std::array<std::pair<double, double>, N>& table, double bytes)
{
  double current = 1.0;
  for (const auto& [threshold, value] : table) {
    if (bytes <= threshold)
      return current;
    current = value;
  }
  return current;
}

} // namespace

double smpi_lat_factor(double bytes) { return lookup(kLatFactor, bytes); }
double smpi_bw_factor(double bytes) { return lookup(kBwFactor, bytes); }

} // namespace perfcast
