#pragma once
// Spectral coordinates of the value graph (beyond CommAnalyzer, which has
// METIS only). The smoothest non-constant eigenvectors of the graph's
// Laplacian (Fiedler; Pothen, Simon and Liou, SIAM J. Matrix Anal. Appl. 11,
// 1990) place the values of a mesh as its geometry would, up to a rotation
// and a monotone stretch of each axis, although the program never stores
// that geometry where the analysis sees it. Cut into a process grid, they
// give the straight cuts along mesh lines that a programmer's geometric
// decomposition makes and that an edge-cut partitioner of the node-element
// graph misses (docs/comm.md).
#include "comm/Blocks.hpp"
#include "comm/Coarsen.hpp"
#include "comm/Singletons.hpp"
#include "comm/ValueGraph.hpp"

#include <optional>
#include <vector>

namespace perfcast::comm {

/// Two spectral coordinates per vertex (0 for singletons; the versions of one
/// array element share their mean), rotated in their plane to the mesh's axes.
struct SpectralCoordinates {
  std::vector<double> x, y;
  double angle_degrees = 0; ///< the rotation applied to the solver's eigenvectors
};

/// The factorisation of the Laplacian may hold at most this many entries
/// (dense fan-out graphs such as a matrix product's exceed it; no coordinates then).
inline constexpr std::size_t kSpectralMaxFactorEntries = 12'000'000;

/// A coarse graph's Laplacian is ordered and factored only with at most this
/// many off-diagonal entries (both triangles); a denser one is coarsened further.
inline constexpr std::size_t kSpectralMaxCoarseEntries = std::size_t{1} << 21;

/// The coordinates of the non-singleton values, or none when there are fewer
/// than 3 of them, no edges between them, or the factorisation is too large.
/// Deterministic (fixed starting vectors and iteration count).
std::optional<SpectralCoordinates> spectral_coordinates(const ValueGraph& graph, const Singletons& singletons);

/// The same from a coarsening of the undirected graph of the non-singleton
/// values (in vertex order; a large graph's): the eigenvectors of the coarse
/// graph's Laplacian, each value at its coarse vertex's coordinates, spread
/// out by a few damped Jacobi sweeps over the value graph's edges. The
/// factor is then bounded by the coarse graph's size.
std::optional<SpectralCoordinates> spectral_coordinates(const ValueGraph& graph, const Singletons& singletons,
                                                        const Coarsening& coarsening);

/// The balanced grid decomposition of the spectral coordinates (pr slabs
/// along x, each cut into pc blocks along y, every cut at equal work or at the
/// widest gap of the coordinate within 1, 2 or 4% of it; the versions of an
/// array element on one process) with the least counted volume, or none when
/// no grid balances within 5%.
std::optional<BlockPartition> best_spectral_partition(const ValueGraph& graph, const Singletons& singletons, int parts,
                                                      const VolumeCounter& counter,
                                                      const SpectralCoordinates& coordinates);

} // namespace perfcast::comm
