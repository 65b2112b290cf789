#pragma once
// Closed single-class queueing networks and their solution by mean value
// analysis (Reiser & Lavenberg, J. ACM 27(2), 1980). Stations are
// load-independent queues, delays (infinite servers) or load-dependent
// stations whose service rate multiplier is min(k, servers) with k customers
// present (a CPU of `servers` cores). REFERENCE.md section 4 gives the
// recurrences.
#include <string>
#include <vector>

namespace perfcast {

enum class StationKind { Queue, Delay, MultiServer, LoadDependent };

struct Station {
  std::string name;
  StationKind kind = StationKind::Queue;
  double demand_s = 0; ///< service demand D = visit ratio x service time, seconds per cycle
  int servers = 1;     ///< MultiServer only
  /// LoadDependent only: rate multiplier mu(k) with k = 1, 2, ... customers
  /// present; the last value holds for every larger k
  std::vector<double> rates;
  /// mu(k) for this station (1 for a queue, k for a delay, min(k, c) for c servers)
  double rate(int k) const;
  /// throws perfcast::Error naming the station when its servers or rates cannot
  /// serve (a multi-server with none, a load-dependent one without positive rates)
  void check_service() const;
};

struct ClosedNetwork {
  std::vector<Station> stations;
  double think_time_s = 0; ///< Z, a delay outside the stations
  /// Time per cycle that two stations serve at once and the sum of residences
  /// counts twice (a transfer holds its sender's and its receiver's link
  /// together): X = N / (Z + sum W_i - overlap). At most the smaller of the
  /// two stations' demands, so the response stays positive.
  double overlap_s = 0;
};

struct StationResult {
  double residence_s = 0; ///< W_i, time per cycle spent at the station (queueing + service)
  double utilization = 0; ///< per server, U_i = X D_i / servers
  double queue_length = 0; ///< Q_i, mean customers present
};

struct MvaResult {
  int customers = 0;
  double throughput = 0;  ///< X, cycles per second
  double response_s = 0;  ///< R = sum of W_i, excluding think time
  std::vector<StationResult> stations;
};

/// Exact MVA for N customers; multi-server stations use the load-dependent
/// recurrence with marginal queue-length probabilities (guarded against
/// negative round-off). Cost O(N K) plus O(N^2) per multi-server station.
/// Throws Error for a network without stations, negative demands or N < 1.
MvaResult solve_mva(const ClosedNetwork& network, int customers);

/// Results for every population 1..N from one exact pass.
std::vector<MvaResult> solve_mva_all(const ClosedNetwork& network, int customers);
/// As solve_mva_all; with last_only, only population N is kept.
std::vector<MvaResult> solve_mva_all(const ClosedNetwork& network, int customers, bool last_only);

/// A general load-dependent station is approximated, as a c-server station
/// is, by a queue of demand D / mu_max and a delay of D (1 - 1 / mu_max).
/// Bard-Schweitzer approximate MVA (Q_i(N-1) ~ (N-1)/N Q_i(N)), iterated to a
/// relative change below `tolerance`. A c-server station adds the usual
/// multi-server correction for idle servers (see Mva.cpp). Cost O(K + sum c)
/// per iteration whatever N, for large populations.
MvaResult solve_mva_approximate(const ClosedNetwork& network, int customers, double tolerance = 1e-10);

/// The approximate MVA's correction for idle servers of a c-server station
/// with `busy` servers busy on average: sum_{j=0}^{c-2} (c-1-j) pi(j), the
/// state probabilities pi(j) of an M/M/c queue at that load (Bolch et al.,
/// Queueing Networks and Markov Chains); 0 for one server.
double multiserver_idle_correction(int servers, double busy);

} // namespace perfcast
