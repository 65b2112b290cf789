#pragma once
// Probes of this machine's speed that need no hardware counters.
namespace perfcast {

/// Flop/s of one core on eight independent multiply-add chains: the same
/// kernel the tracer times at MPI_Init when it has no counters, so traces and
/// platforms written on one machine use one unit. Best of `rounds` rounds of
/// `seconds` each.
double measure_core_flop_rate(int rounds = 5, double seconds = 0.02);

/// One chunk of that mix on x[0..7]: 20,000 multiply-adds on each chain.
/// Returns its flop (2 per multiply-add, 320,000). Every probe of the mix
/// (this file's, the CPU sampler's, the disk CPU sampler's) runs these chunks.
double mix_chunk(double* x);

/// Bytes/s of memcpy between two buffers of `bytes` each (best of `rounds`).
double measure_memcpy_rate(double bytes = 64e6, int rounds = 5);

} // namespace perfcast
