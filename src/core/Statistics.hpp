#pragma once
// Order statistics shared by the models' fits.
#include <vector>

namespace perfcast {

/// The median: the middle value, the mean of the middle two for an even count; 0 for no value.
double median(std::vector<double> values);

} // namespace perfcast
