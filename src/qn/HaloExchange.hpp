#pragma once
// A halo exchange on a d-dimensional process grid (d = 1, 2 or 3) whose rank
// layout the partner lists need not reveal: every rank exchanges with its
// grid neighbours, across faces only or across faces, edges and corners (a
// 27-point finite-element stencil), and with nobody else. The neighbours a
// rank can have are bounded by the grid's dimensionality (2d, or 3^d - 1),
// so the exchange's message count stops growing where a curve through 2, 4
// and 8 processes would not. The grid of n processes is MPI_Dims_create's
// most nearly cubic one.
#include "qn/MeasuredRun.hpp"
#include "qn/TrafficStructure.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace perfcast {

struct HaloExchange {
  int dimensions = 3;              ///< d
  bool diagonals = false;          ///< edges and corners too (3^d - 1 neighbours inside), else faces (2d)
  /// faces only, on a grid whose ends meet (CoMD's periodic domain): along a side of p >= 2 ranks
  /// every rank sends across both its faces (with p = 2 both to its one partner), along a side of
  /// 1 to itself or nothing; false in models written before the field existed
  bool periodic = false;
  /// periodic, and the runs' ranks sent themselves both faces of each side of 1 (m messages a face,
  /// the bytes of a cut plane): on a platform without loopback these cross the host's own links;
  /// false in models written before the field existed
  bool to_itself = false;
  double messages_per_pair = 0;    ///< messages per ordered pair of neighbours (periodic: per face crossed)
  /// bytes a run sends: bytes F_k(n), F_k = sum_i 2 (p_i - 1) prod_{j != i} p_j^(1-k): the faces
  /// between the grid's slabs, each of an area falling as prod_{j != i} p_j^-k (k = 1: a fixed
  /// domain cut finer, k = 0: a fixed subdomain per process); periodic: 2 p_i for p_i >= 2 (p cut
  /// planes along a side of p), 0 for p_i = 1
  double bytes = 0;
  double exponent = 1; ///< k, within [0, 1]
};

/// MPI_Dims_create(n, d): the most nearly equal d factors of n, largest first.
std::vector<int> balanced_dims(int n, int dimensions);

/// Mean number of neighbours of a rank on that grid.
double mean_neighbours(const std::vector<int>& dims, bool diagonals);

/// Messages and bytes a whole run of n processes sends in the exchange, those
/// to the ranks themselves included (and apart); nothing below 2 processes
/// unless the exchange goes `to_itself`.
GridTraffic halo_traffic(const HaloExchange& halo, int n);

/// The exchange the partner lists of the runs show, when every run with two
/// or more processes lists its partners (setup traffic aside: a pair of at
/// most a tenth of the median pair's messages, setup_messages_limit), the
/// partners are mutual, every pair
/// exchanges as many messages (within 5%), and each run's mean and largest
/// neighbour counts are a d-dimensional grid's (faces, or faces, edges and
/// corners) for one d and kind at every count; the lowest d that fits all
/// runs, faces before diagonals. A periodic face grid comes first at each d
/// when every rank's partners are its (partners twice the messages along
/// sides of 2) and some run shows the wrap: a side of 3 or more whose ends
/// exchange, or ranks sending themselves 2m messages per side of 1. A grid on which every rank neighbours every
/// other (all sides at most 2 with diagonals) is also an all-to-all: it counts
/// only when each rank's partners' bytes fall in the boundary classes (faces
/// at least twice any edge, edges twice any corner). Nothing otherwise.
std::optional<HaloExchange> find_halo_exchange(const std::vector<MeasuredRun>& runs);

// to_json/from_json by member name; from_json throws nlohmann::json exceptions on missing fields,
// except "periodic" and "to_itself" (absent in older models: false)
void to_json(nlohmann::json& j, const HaloExchange& h);
void from_json(const nlohmann::json& j, HaloExchange& h);

} // namespace perfcast
