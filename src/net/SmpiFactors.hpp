#pragma once
// SimGrid 3.32's default SMPI latency and bandwidth correction factors
// (smpi/lat-factor and smpi/bw-factor), piecewise constant in the message size.
namespace perfcast {

/// Factor applied to the route latency for a message of `bytes` (envelope included).
double smpi_lat_factor(double bytes);
/// Factor applied to the achieved bandwidth for a message of `bytes` (envelope included).
double smpi_bw_factor(double bytes);

} // namespace perfcast
