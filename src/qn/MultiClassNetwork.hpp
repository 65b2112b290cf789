#pragma once
// Closed multi-class queueing networks and their solution by mean value
// analysis: exact (Reiser & Lavenberg, J. ACM 27(2), 1980, with the marginal
// probabilities of load-dependent stations as in REFERENCE.md section 4, per
// class) and Bard-Schweitzer's approximation (Schweitzer 1979; Bard 1979) for
// large populations. A class is a set of customers with their own population
// and their own demand at every station; the queueing model of an MPI run
// makes each node's processes a class of their own.
#include "qn/ClosedNetwork.hpp"

#include <string>
#include <vector>

namespace perfcast {

/// One class of customers: its population and its demands.
struct CustomerClass {
  std::string name;
  int population = 0;           ///< N_c
  std::vector<double> demand_s; ///< D_c,k = V_c,k S_k per station, seconds per cycle of one customer
  double think_time_s = 0;      ///< Z_c, a delay outside the stations
  /// time per cycle that two of the class's stations serve at once (see ClosedNetwork::overlap_s)
  double overlap_s = 0;
};

struct MultiClassNetwork {
  /// kind, servers and rates of each station; Station::demand_s is not used (each class has its own)
  std::vector<Station> stations;
  std::vector<CustomerClass> classes;
};

struct MultiClassResult {
  std::vector<double> throughput; ///< X_c, cycles per second of the whole class
  std::vector<double> cycle_s;    ///< N_c / X_c, the time of one customer's cycle, think time included
  std::vector<std::vector<double>> residence_s; ///< W_c,k, per class and station
  std::vector<double> utilization;  ///< per station and server, sum_c X_c D_c,k / servers
  std::vector<double> queue_length; ///< per station, all classes
  int iterations = 0;               ///< sweeps of the approximation; 0 when exact
};

/// Exact multi-class MVA over the lattice of population vectors (level by
/// level, so memory grows with the largest level, not the lattice). Throws
/// Error for a network without stations or classes, a class without
/// customers, or demands that are negative or of the wrong length.
MultiClassResult solve_multiclass_mva(const MultiClassNetwork& network);

/// Operations the exact solution takes, about: lattice points x classes x
/// (stations + the marginal probabilities kept per load-dependent station,
/// one more than the customers of the classes that visit it).
double multiclass_exact_cost(const MultiClassNetwork& network);

/// Bard-Schweitzer approximate MVA: a customer of class r arriving at station
/// k sees the queue of the full population less its own share,
/// Q_k - Q_r,k / N_r. A c-server station adds the idle-server correction of
/// solve_mva_approximate; a general load-dependent one is a queue of demand
/// D / mu_max and a delay of D (1 - 1 / mu_max). Jacobi sweeps from queues
/// spread evenly over each class's stations, until no class's throughput
/// changes by more than `tolerance` (relative) between sweeps and no queue
/// length by more than `tolerance` times its class's population; throws Error
/// when 100,000 sweeps do not get there. Deterministic.
MultiClassResult solve_multiclass_mva_approximate(const MultiClassNetwork& network, double tolerance = 1e-10);

} // namespace perfcast
