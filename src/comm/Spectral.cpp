#include "comm/Spectral.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <random>

namespace perfcast::comm {

namespace {

using SparseMatrix = Eigen::SparseMatrix<double>;
using Ldlt = Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>>;

// The size of the factor, known after the symbolic analysis.
struct FillProbe : Ldlt {
  std::size_t factor_entries() const { return static_cast<std::size_t>(this->m_matrix.nonZeros()); }
};

constexpr int kBlockSize = 3;  // eigenvectors iterated together: 2 wanted, 1 for the gap
constexpr int kIterations = 30; // inverse subspace iterations (fixed: deterministic)
constexpr int kSmoothingSweeps = 50; // from a coarse graph's coordinates to the values'


// Subtracts each column's mean: the Laplacian's constant null vector. (On a
// disconnected graph the other null vectors, constant on each component,
// stay: they are the smoothest coordinates, and they separate the components.)
void project_out_constant(Eigen::MatrixXd& x)
{
  x.rowwise() -= x.colwise().mean();
}

// Splits `members` into k groups of about equal weight along `coord`, each
// cut where the coordinate jumps most within `slack` (a fraction of a
// group's weight) of its equal-weight position.
// `members` come sorted by (coord, index): sorted once for every grid (below).
std::vector<std::vector<std::uint32_t>> split(const std::vector<std::uint32_t>& members,
                                              const std::vector<double>& coord, const std::vector<double>& weight,
                                              int k, double slack)
{
  std::size_t m = members.size();
  std::vector<double> prefix(m + 1, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    prefix[i + 1] = prefix[i] + weight[members[i]];
  double total = prefix[m], window = slack * total / k;
  std::vector<std::vector<std::uint32_t>> groups(static_cast<std::size_t>(k));
  std::size_t begin = 0;
  for (int c = 1; c <= k; ++c) {
    std::size_t end = m;
    if (c < k) {
      double target = total * c / k;
      std::size_t best = 0;
      double best_gap = -1, best_off = 0;
      auto lo = std::lower_bound(prefix.begin() + static_cast<std::ptrdiff_t>(begin) + 1, prefix.end() - 1,
                                 target - window);
      for (auto it = lo; it != prefix.end() - 1 && *it <= target + window; ++it) {
        std::size_t i = static_cast<std::size_t>(it - prefix.begin());
        double gap = coord[members[i]] - coord[members[i - 1]], off = std::abs(*it - target);
        if (gap > best_gap || (gap == best_gap && off < best_off)) {
          best = i;
          best_gap = gap;
          best_off = off;
        }
      }
      if (best == 0) { // no position inside the window: the nearest to the target
        auto it = std::lower_bound(prefix.begin() + static_cast<std::ptrdiff_t>(begin) + 1, prefix.end() - 1, target);
        best = static_cast<std::size_t>(it - prefix.begin());
      }
      end = std::max(best, begin);
    }
    groups[static_cast<std::size_t>(c - 1)].assign(members.begin() + static_cast<std::ptrdiff_t>(begin),
                                                   members.begin() + static_cast<std::ptrdiff_t>(end));
    begin = end;
  }
  return groups;
}

// The memory locations of the values: the successive versions of one array
// element (same heap array, same offset) form one unit, which one process
// owns, as an MPI code owns the element; a value outside arrays is a unit alone.
struct Locations {
  std::vector<std::uint32_t> units; ///< one vertex per unit (its first), in vertex order
  std::vector<std::uint32_t> unit_of; ///< per vertex, its unit's vertex
};

Locations locations(const ValueGraph& graph, const std::vector<std::uint32_t>& members)
{
  Locations l;
  l.unit_of.assign(graph.vertices.size(), 0);
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> first;
  for (std::uint32_t v : members) {
    const ValueVertex& vertex = graph.vertices[v];
    std::uint32_t unit = v;
    if (vertex.array != 0)
      unit = first.try_emplace({vertex.array, vertex.offset}, v).first->second;
    l.unit_of[v] = unit;
    if (unit == v)
      l.units.push_back(v);
  }
  return l;
}

// Owners of a pr x pc grid: slabs of equal work along x, each cut along y;
// the grid places units (weighed with their members' work), each member
// goes with its unit.
constexpr double kSlacks[] = {0.0, 0.01, 0.02, 0.04}; // the cut positions tried around equal work
// The units sorted along one coordinate, ties by index.
std::vector<std::uint32_t> sorted_units(const Locations& where, const std::vector<double>& coord)
{
  std::vector<std::uint32_t> units = where.units;
  std::sort(units.begin(), units.end(),
            [&](std::uint32_t a, std::uint32_t b) { return coord[a] < coord[b] || (coord[a] == coord[b] && a < b); });
  return units;
}

// `by_x` and `by_y`: the units sorted along x and along y (sorted_units); a
// slab's units are picked out of by_y in order, so no grid sorts again.
std::vector<int> grid_owners(std::size_t vertices, const std::vector<std::uint32_t>& members,
                             const Locations& where, const std::vector<std::uint32_t>& by_x,
                             const std::vector<std::uint32_t>& by_y, const std::vector<double>& x,
                             const std::vector<double>& y, const std::vector<double>& unit_weight, int pr, int pc,
                             double slack)
{
  std::vector<int> owner(vertices, -1);
  std::vector<std::vector<std::uint32_t>> slabs = split(by_x, x, unit_weight, pr, slack);
  for (int r = 0; r < pr; ++r)
    for (std::uint32_t v : slabs[r])
      owner[v] = r; // the slab, for now
  std::vector<std::vector<std::uint32_t>> slab_by_y(static_cast<std::size_t>(pr));
  for (int r = 0; r < pr; ++r)
    slab_by_y[r].reserve(slabs[r].size());
  for (std::uint32_t v : by_y)
    slab_by_y[owner[v]].push_back(v);
  for (int r = 0; r < pr; ++r) {
    std::vector<std::vector<std::uint32_t>> blocks = split(slab_by_y[r], y, unit_weight, pc, slack);
    for (int c = 0; c < pc; ++c)
      for (std::uint32_t v : blocks[c])
        owner[v] = r * pc + c;
  }
  for (std::uint32_t v : members)
    owner[v] = owner[where.unit_of[v]];
  return owner;
}

// A unit's weight: its members' summed weights.
std::vector<double> unit_weights(const Locations& where, const std::vector<std::uint32_t>& members,
                                 const std::vector<double>& weight)
{
  std::vector<double> sum(weight.size(), 0.0);
  for (std::uint32_t v : members)
    sum[where.unit_of[v]] += weight[v];
  return sum;
}

// What balancing weighs: the work, or the values when nothing is computed.
std::vector<double> balance_weights(const ValueGraph& graph, const std::vector<std::uint32_t>& members)
{
  std::vector<double> weight(graph.vertices.size(), 0.0);
  double total = 0;
  for (std::uint32_t v : members)
    total += weight[v] = static_cast<double>(graph.vertices[v].work);
  if (total == 0)
    for (std::uint32_t v : members)
      weight[v] = 1;
  return weight;
}

std::vector<std::uint32_t> non_singletons(const Singletons& singletons)
{
  std::vector<std::uint32_t> members;
  for (std::size_t v = 0; v < singletons.kind.size(); ++v)
    if (singletons.kind[v] == SingletonKind::None)
      members.push_back(static_cast<std::uint32_t>(v));
  return members;
}


// The two smoothest non-constant eigenvectors of the Laplacian whose
// off-diagonal entries `entries` holds (lower triangle, each with its two
// diagonal terms), n x 2, or none when the
// factor is too large or fails.
std::optional<Eigen::MatrixXd> smoothest_vectors(std::vector<Eigen::Triplet<double>> entries, double heaviest, int n)
{
  for (auto& t : entries)
    t = Eigen::Triplet<double>(t.row(), t.col(), t.value() / heaviest);
  // the Laplacian and its shifted copy are both built from triplets (filling
  // a compressed matrix entry by entry, as coeffRef on a missing diagonal
  // does, moves it to uncompressed storage, one insertion at a time)
  SparseMatrix laplacian(n, n); // lower triangle
  laplacian.setFromTriplets(entries.begin(), entries.end());
  double mean_degree = 0;
  for (int v = 0; v < n; ++v)
    mean_degree += laplacian.coeff(v, v);
  mean_degree /= n;
  entries.reserve(entries.size() + static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v)
    entries.emplace_back(v, v, 1e-8 * mean_degree); // invertible; the constant is projected out
  SparseMatrix shifted(n, n);
  shifted.setFromTriplets(entries.begin(), entries.end());
  entries = {};
  FillProbe solver;
  solver.analyzePattern(shifted);
  if (solver.factor_entries() > kSpectralMaxFactorEntries)
    return std::nullopt;
  solver.factorize(shifted);
  if (solver.info() != Eigen::Success)
    return std::nullopt;
  // inverse subspace iteration from fixed starting vectors, then Rayleigh-Ritz
  int block = std::min(kBlockSize, n - 1);
  Eigen::MatrixXd x(n, block);
  std::mt19937_64 random(1);
  for (Eigen::Index i = 0; i < x.size(); ++i)
    x.data()[i] = static_cast<double>(random() >> 11) * 0x1.0p-53 - 0.5;
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    project_out_constant(x);
    x = Eigen::HouseholderQR<Eigen::MatrixXd>(x).householderQ() * Eigen::MatrixXd::Identity(n, block);
    if (iteration + 1 < kIterations)
      x = solver.solve(x);
  }
  SparseMatrix full = laplacian.selfadjointView<Eigen::Lower>();
  Eigen::MatrixXd ritz = x.transpose() * (full * x);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> small(ritz);
  x = x * small.eigenvectors(); // ascending eigenvalues
  if (block < 2)
    return std::nullopt;
  return Eigen::MatrixXd(x.leftCols(2));
}

// From the eigenvectors of the members (row i: members[i]), the coordinates:
// a location's mean, rotated to the mesh's axes.
SpectralCoordinates finish_coordinates(const ValueGraph& graph, const std::vector<std::uint32_t>& members,
                                       const Eigen::MatrixXd& x);

// An edge a - b of weight w in the lower triangle of a Laplacian's triplets
// (w on both diagonals, -w off them); `heaviest` keeps the largest weight.
void add_laplacian_edge(std::vector<Eigen::Triplet<double>>& entries, double& heaviest, int a, int b, double w)
{
  heaviest = std::max(heaviest, w);
  entries.emplace_back(std::max(a, b), std::min(a, b), -w);
  entries.emplace_back(a, a, w);
  entries.emplace_back(b, b, w);
}

} // namespace

std::optional<SpectralCoordinates> spectral_coordinates(const ValueGraph& graph, const Singletons& singletons)
{
  std::vector<std::uint32_t> members = non_singletons(singletons);
  std::vector<int> local(graph.vertices.size(), -1);
  for (std::size_t i = 0; i < members.size(); ++i)
    local[members[i]] = static_cast<int>(i);
  int n = static_cast<int>(members.size());
  if (n < 3)
    return std::nullopt;
  // the Laplacian of the bytes an edge would carry if cut, both directions summed
  std::vector<Eigen::Triplet<double>> entries;
  double heaviest = 0;
  for (const ValueEdge& e : graph.edges) {
    int a = local[e.source], b = local[e.sink];
    if (a < 0 || b < 0 || a == b)
      continue;
    add_laplacian_edge(entries, heaviest, a, b,
                       static_cast<double>(e.versions) * std::max(1u, graph.vertices[e.source].bytes));
  }
  if (entries.empty())
    return std::nullopt;
  std::optional<Eigen::MatrixXd> x = smoothest_vectors(std::move(entries), heaviest, n);
  if (!x)
    return std::nullopt;
  return finish_coordinates(graph, members, *x);
}

std::optional<SpectralCoordinates> spectral_coordinates(const ValueGraph& graph, const Singletons& singletons,
                                                        const Coarsening& coarsening)
{
  std::vector<std::uint32_t> members = non_singletons(singletons);
  if (coarsening.coarse_of.size() != members.size())
    return std::nullopt;
  // a coarse graph of high degree (a dense fan-out's) is coarsened further,
  // until its Laplacian is small enough to order and factor
  const Coarsening* use = &coarsening;
  Coarsening further;
  while (use->coarse.adjncy.size() > kSpectralMaxCoarseEntries && use->coarse.vertices() > 64) {
    Coarsening next = coarsen(use->coarse, use->coarse.vertices() / 4);
    if (next.coarse.vertices() == use->coarse.vertices())
      break; // the matching stalls: no smaller graph
    std::vector<std::int32_t> composed(coarsening.coarse_of.size());
    for (std::size_t i = 0; i < composed.size(); ++i)
      composed[i] = next.coarse_of[use->coarse_of[i]];
    further.coarse = std::move(next.coarse);
    further.coarse_of = std::move(composed);
    use = &further;
  }
  if (use->coarse.adjncy.size() > kSpectralMaxCoarseEntries)
    return std::nullopt;
  const WeightedGraph& coarse = use->coarse;
  const std::vector<std::int32_t>& coarse_of = use->coarse_of;
  int n = static_cast<int>(coarse.vertices());
  if (members.size() < 3 || n < 3)
    return std::nullopt;
  std::vector<Eigen::Triplet<double>> entries;
  double heaviest = 0;
  for (int v = 0; v < n; ++v)
    for (std::int32_t k = coarse.xadj[v]; k < coarse.xadj[v + 1]; ++k) {
      int u = coarse.adjncy[k];
      if (u >= v)
        continue; // each pair once, from its larger end
      add_laplacian_edge(entries, heaviest, v, u, coarse.adjwgt[k]);
    }
  if (entries.empty())
    return std::nullopt;
  std::optional<Eigen::MatrixXd> cx = smoothest_vectors(std::move(entries), heaviest, n);
  if (!cx)
    return std::nullopt;
  // each value starts at its coarse vertex's coordinates; damped Jacobi
  // sweeps over the value graph's edges (x <- x / 2 + the neighbours'
  // weighted mean / 2, the weights those of the Laplacian) then spread the
  // members of a coarse vertex out between their neighbours
  std::vector<int> local(graph.vertices.size(), -1);
  for (std::size_t i = 0; i < members.size(); ++i)
    local[members[i]] = static_cast<int>(i);
  // x and y of a value side by side (one cache line for both, as a sweep
  // reads them at random), the bytes an edge carries computed as it is read
  std::size_t m = members.size();
  std::vector<double> xy(2 * m), sum(2 * m), total(m);
  for (std::size_t i = 0; i < m; ++i) {
    xy[2 * i] = (*cx)(coarse_of[i], 0);
    xy[2 * i + 1] = (*cx)(coarse_of[i], 1);
  }
  for (int sweep = 0; sweep < kSmoothingSweeps; ++sweep) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(total.begin(), total.end(), 0.0);
    for (const ValueEdge& e : graph.edges) {
      int a = local[e.source], b = local[e.sink];
      if (a < 0 || b < 0 || a == b)
        continue;
      double w = static_cast<double>(e.versions) * std::max(1u, graph.vertices[e.source].bytes);
      sum[2 * a] += w * xy[2 * b];
      sum[2 * a + 1] += w * xy[2 * b + 1];
      sum[2 * b] += w * xy[2 * a];
      sum[2 * b + 1] += w * xy[2 * a + 1];
      total[a] += w;
      total[b] += w;
    }
    for (std::size_t i = 0; i < m; ++i)
      if (total[i] > 0) {
        xy[2 * i] = 0.5 * xy[2 * i] + 0.5 * sum[2 * i] / total[i];
        xy[2 * i + 1] = 0.5 * xy[2 * i + 1] + 0.5 * sum[2 * i + 1] / total[i];
      }
  }
  Eigen::MatrixXd x(static_cast<Eigen::Index>(m), 2);
  for (std::size_t i = 0; i < m; ++i) {
    x(static_cast<Eigen::Index>(i), 0) = xy[2 * i];
    x(static_cast<Eigen::Index>(i), 1) = xy[2 * i + 1];
  }
  return finish_coordinates(graph, members, x);
}

namespace {

SpectralCoordinates finish_coordinates(const ValueGraph& graph, const std::vector<std::uint32_t>& members,
                                       const Eigen::MatrixXd& x)
{
  int n = static_cast<int>(members.size());
  // a location's versions are placed by one coordinate, their mean
  Locations where = locations(graph, members);
  std::vector<double> sum_x(graph.vertices.size(), 0.0), sum_y(graph.vertices.size(), 0.0),
      versions(graph.vertices.size(), 0.0);
  for (int i = 0; i < n; ++i) {
    std::uint32_t unit = where.unit_of[members[i]];
    sum_x[unit] += x(i, 0);
    sum_y[unit] += x(i, 1);
    versions[unit] += 1;
  }
  std::vector<double> ex(graph.vertices.size(), 0.0), ey(graph.vertices.size(), 0.0);
  for (std::uint32_t v : members) {
    std::uint32_t unit = where.unit_of[v];
    ex[v] = sum_x[unit] / versions[unit];
    ey[v] = sum_y[unit] / versions[unit];
  }
  auto rotated = [&](double degrees, std::vector<double>& rx, std::vector<double>& ry) {
    double c = std::cos(degrees * M_PI / 180), s = std::sin(degrees * M_PI / 180);
    rx.assign(graph.vertices.size(), 0.0);
    ry.assign(graph.vertices.size(), 0.0);
    for (std::uint32_t v : members) {
      rx[v] = c * ex[v] + s * ey[v];
      ry[v] = -s * ex[v] + c * ey[v];
    }
  };
  // The rotation in the plane of the two smoothest eigenvectors (degenerate
  // on a square mesh, so the solver's basis is arbitrary there) that lines
  // the coordinates up with the mesh's own axes, where each coordinate is a
  // function of one mesh index: over the locations of a rectangular mesh the
  // two are then independent, and any rotation mixes them, which moves
  // their distributions towards a normal one (the fourth cumulant of
  // c X + s Y is c^4 k(X) + s^4 k(Y) for independent X and Y). So the angle
  // taken is the one whose two coordinates' excess kurtoses are largest in
  // size, as independent component analysis does (Hyvarinen and Oja 2000):
  // quarter-degree steps over the quarter turn (a rotation by 90 degrees
  // swaps the coordinates), then hundredth-degree steps around the best. Not
  // the angle whose cuts count the fewest bytes: on a 5-point grid that is
  // about 40 degrees, a diamond-shaped decomposition no blocked code makes.
  std::vector<double> ux, uy;
  double mean_x = 0, mean_y = 0;
  for (std::uint32_t unit : where.units) {
    ux.push_back(ex[unit]);
    uy.push_back(ey[unit]);
    mean_x += ex[unit];
    mean_y += ey[unit];
  }
  mean_x /= static_cast<double>(ux.size());
  mean_y /= static_cast<double>(uy.size());
  for (std::size_t k = 0; k < ux.size(); ++k) {
    ux[k] -= mean_x;
    uy[k] -= mean_y;
  }
  auto non_normality = [&](double degrees) {
    double c = std::cos(degrees * M_PI / 180), s = std::sin(degrees * M_PI / 180);
    double x2 = 0, x4 = 0, y2 = 0, y4 = 0;
    for (std::size_t k = 0; k < ux.size(); ++k) {
      double rx = c * ux[k] + s * uy[k], ry = -s * ux[k] + c * uy[k];
      x2 += rx * rx;
      x4 += rx * rx * rx * rx;
      y2 += ry * ry;
      y4 += ry * ry * ry * ry;
    }
    double units = static_cast<double>(ux.size());
    auto excess = [units](double m2, double m4) { return m2 > 0 ? m4 * units / (m2 * m2) - 3 : 0.0; };
    return std::abs(excess(x2, x4)) + std::abs(excess(y2, y4));
  };
  auto scan = [&](double from, double step, int steps) {
    double best_angle = from, best_score = -1;
    for (int k = 0; k < steps; ++k) {
      double score = non_normality(from + step * k);
      if (score > best_score) {
        best_score = score;
        best_angle = from + step * k;
      }
    }
    return best_angle;
  };
  SpectralCoordinates best;
  double coarse = scan(0.0, 0.25, 360);
  best.angle_degrees = scan(coarse - 0.25, 0.01, 51);
  rotated(best.angle_degrees, best.x, best.y);
  return best;
}

} // namespace

std::optional<BlockPartition> best_spectral_partition(const ValueGraph& graph, const Singletons& singletons, int parts,
                                                      const VolumeCounter& counter,
                                                      const SpectralCoordinates& coordinates)
{
  std::vector<std::uint32_t> members = non_singletons(singletons);
  if (parts < 2 || members.size() < static_cast<std::size_t>(parts))
    return std::nullopt;
  Locations where = locations(graph, members);
  if (where.units.size() < static_cast<std::size_t>(parts))
    return std::nullopt;
  std::vector<double> weight = unit_weights(where, members, balance_weights(graph, members));
  std::vector<std::uint32_t> by_x = sorted_units(where, coordinates.x), by_y = sorted_units(where, coordinates.y);
  RankedCandidates ranked(counter.sampled() ? kBlocksCountedExactly : 1);
  for (int pr = 1; pr <= parts; ++pr) {
    if (parts % pr)
      continue;
    for (double slack : kSlacks) {
      std::vector<int> owner =
          grid_owners(graph.vertices.size(), members, where, by_x, by_y, coordinates.x, coordinates.y, weight, pr,
                      parts / pr, slack);
      if (!work_balanced(graph, owner, parts))
        continue;
      std::uint64_t rank = counter.sampled_bytes(owner, parts); // before owner is moved
      ranked.offer(rank, std::move(owner), fmt::format("spectral {}x{}", pr, parts / pr));
    }
  }
  return ranked.best(counter, parts);
}

} // namespace perfcast::comm
