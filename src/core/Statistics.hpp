#pragma once
// Order statistics shared by the models' fits.
#include <vector>

namespace perfcast {

/// The median: the middle value, the mean of the middle two for an even count; 0 for no value.
double median(std::vector<double> values);

/// The relative range (largest - smallest) / smallest of positive values, a repeated measurement's spread; 0 for
/// fewer than two values or a smallest that is not positive.
double relative_range(const std::vector<double>& values);

} // namespace perfcast
