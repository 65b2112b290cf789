#include "core/Statistics.hpp"

#include <algorithm>

namespace perfcast {

double median(std::vector<double> values)
{
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  std::size_t half = values.size() / 2;
  return values.size() % 2 == 1 ? values[half] : (values[half - 1] + values[half]) / 2;
}

double relative_range(const std::vector<double>& values)
{
  if (values.size() < 2)
    return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo > 0 ? (*hi - *lo) / *lo : 0;
}

} // namespace perfcast
