#pragma once
// Saad, El-Mahdy and El-Shishiny, "Performance Modeling of MPI-based
// Applications on Cloud Multicore Servers", RAPIDO 2019
// (../shared/papers/queueing-network-model-saad2019.txt).
//
// An MPI run of n processes is a closed queueing network of n jobs; a job is
// one process cycle (compute phi instructions, then one message). Each node i
// has a CPU station with c_i cores (rate min(k, c_i)) and a network station.
//   s_cpu,i = W / (s(n) n speed_i)                              (eq. 3, 6)
//   s_net,i = m(n) T_w,i Net_Constant                           (eq. 4, 5, 7)
//   V_cpu,i = n_i/n V_comp + n_i/n (n_i-1)/n V_comm + (n-n_i)/n n_i/n V_comm   (eq. 8)
//   V_net,i = n_i/n (n-n_i)/n + (n-n_i)/n n_i/n                 (eq. 9)
//   T = R s(n), R from mean value analysis                      (eq. 10)
// W (the paper's CPU_Constant times the reference speed, in flops) and
// Net_Constant are fitted to measured runs. perfcast's refinements (each can
// be switched off, see ModelVariant): the route latency, the start-up time T_s
// the paper sets to 0, is a delay station per node (demand V_net,i T_s,i); the
// NIC is full duplex, two queues each visited n_i/n (n-n_i)/n times (the two
// terms of eq. 9), as Ethernet and SimGrid's split-duplex links are; s(n) and
// m(n) are chosen among several curve forms by cross-validation; the bytes a
// run sends, B(n) = n s(n) m(n), are fitted as one curve and m(n) follows from
// it; and a rank that receives more than its share (a reduce's root) loads its
// node's NIC accordingly instead of the uniform n_i/n of eq. 9.
#include "fit/Curve.hpp"
#include "qn/CollectiveTraffic.hpp"
#include "qn/GridClasses.hpp"
#include "platform/Platform.hpp"
#include "qn/ClosedNetwork.hpp"
#include "qn/HaloExchange.hpp"
#include "qn/MultiClassNetwork.hpp"
#include "qn/SelfTraffic.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/TrafficStructure.hpp"

#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast {

/// How the model fared on runs it was not fitted on, set by assess_reliability.
struct Reliability {
  std::string method;         ///< how it was measured ("extrapolation and leave-one-out", ...); empty if never
  double queueing_error = -1; ///< mean absolute relative error of the queueing model; -1 when not measured
  double amdahl_error = -1;   ///< likewise for the Amdahl baseline
  bool trusted = false;       ///< the queueing model validated within kTrustedError
  /// Amdahl's law is recommended: the queueing model failed its checks and Amdahl's did clearly better
  bool recommend_amdahl = false;
  /// mean over the distinct held-out checks of (queueing error - Amdahl error), and its standard error
  double error_difference = 0, error_difference_se = -1;
  /// the "next count" check alone: fitted up to next_from processes, asked for next_to (0 when not run)
  int next_from = 0, next_to = 0;
  double next_queueing_error = -1; ///< its mean absolute relative error for the queueing model
  double next_amdahl_error = -1;   ///< and for Amdahl's law
  std::string warning;        ///< why its predictions are a guess, when they are
};

struct QueueingModel {
  Curve sends;         ///< s(n), sends per process
  Curve message_bytes; ///< m(n), mean message size, as fitted (used when run_bytes is unset)
  /// B(n), bytes all processes of a run send; when set, m(n) = B(n) / (n s(n))
  std::optional<Curve> run_bytes;
  /// share of all bytes the busiest receiving rank gets; unset means uniform (1/n)
  std::optional<Curve> hot_receive;
  /// that rank's share of all bytes sent (a reduce's root: nearly none); unset means 1/n
  std::optional<Curve> hot_send;
  /// and of all messages sent (their latencies); unset means 1/n
  std::optional<Curve> hot_send_messages;
  /// the point-to-point traffic classed on the process grid (given with --grid or found in the runs' partner
  /// lists): its messages, bytes and each rank's received bytes come from the grid at n, and s(n) and B(n) are
  /// the rest's
  std::optional<GridClasses> grid;
  /// when the training grids cannot tell whether `grid` wraps (no side over 2; periodic_ambiguity): the same
  /// rule with every axis periodic, which classes the runs as well; predict gives its time beside
  std::optional<GridClasses> grid_wrapped;
  /// a halo exchange on a d-dimensional grid whose rank layout is not checked
  /// (found when `grid` is not): likewise taken from the grid at n
  std::optional<HaloExchange> halo;
  /// the collectives' calls per type from the runs' traces (as replays list them): their messages,
  /// bytes and each rank's received bytes at n come from the replay's default algorithms at n, and s(n) and B(n)
  /// are the rest's (setup traffic, collectives on sub-communicators)
  std::optional<CollectiveTraffic> collectives;
  /// a rank's point-to-point messages to itself beside the grid (SWFFT's own blocks), in every training run:
  /// kept on its node at n, and the one-process run's network time; s(n) and B(n) are the rest's
  std::optional<SelfTraffic> self_traffic;
  /// what the one-process training run sent itself (its partner list; none: it was not measured or did not
  /// list its partners): at one process the structures take it, not a grid's wrap extrapolated from the runs
  /// of 2 and more (CoSP2's all-to-all class on a periodic 1-D grid would send a lone rank its own rows)
  std::optional<GridTraffic> one_process_traffic;
  /// the training runs' message sizes relative to their mean (SMPI's factors per size); empty: all at the mean.
  /// With size_mix_of_rest, the mix of the traffic beside the grid and the collectives only (the grid's
  /// classes and the collectives have their own sizes at n)
  std::vector<SizeShare> size_mix;
  bool size_mix_of_rest = false;
  double v_comp = 1;   ///< share of a cycle spent computing
  double v_comm = 0;   ///< share of a cycle spent in communication overhead
  double work_flops = 0;   ///< W
  /// the runs' recorded work relative to its value at the smallest training
  /// count, g(n): W(n) = W g(n) (HPL polls for messages, which SMPI records as
  /// computation); unset means constant
  std::optional<Curve> work_growth;
  double net_constant = 1; ///< Net_Constant
  /// perfcast's refinements, on by default; both off is the paper's model
  bool duplex_nic = true;     ///< separate send and receive queues per node (else one queue, as the paper)
  bool latency_delay = true;  ///< route latency as a delay station (else T_s = 0, as the paper)
  bool local_via_nic = true;  ///< messages within a node cross its NIC when the platform routes them so
  bool other_partners = true; ///< a process's partner is one of the n-1 others (the paper's eq. 9 allows itself)
  /// messages timed as SimGrid's SMPI network times them (size-dependent latency and bandwidth factors)
  bool smpi_factors = false;
  /// each node's processes are a customer class of their own, visiting their
  /// own node's CPU and send queue (else one class roams every node, as the paper)
  bool node_classes = true;
  /// with node_classes: a node's processes compute and exchange in lockstep, one
  /// customer of its class whose CPU phase lasts as long as its slowest process
  /// and whose transfers are all of theirs, every node's exchange sharing the
  /// links at once (R_c = CPU + busiest link used + latency, no MVA); else each
  /// process is a customer, as the paper, and one's transfer may overlap
  /// another's computation
  bool lockstep = false;
  /// the slowest rank's work over the mean rank's in a run of 2 or more (lockstep only)
  double imbalance = 1;
  // fit report
  std::vector<double> residuals; ///< relative errors on the training runs
  int iterations = 0;
  std::string fit_message;
  bool curves_cross_validated = false;
  int degrees_of_freedom = 0;         ///< training runs minus the two constants
  double work_relative_se = 0;        ///< standard error of W over W; 0 when not estimable
  double net_constant_relative_se = 0; ///< likewise for Net_Constant
  /// whether the training runs identify Net_Constant (identify_net_constant); else it stays 1
  bool net_constant_identified = true;
  /// the CPU side's scatter: the model's CPU phase against the replays' slowest rank's compute, relative to the
  /// run time (RMS, one scale fitted); -1 when the runs do not list their ranks' compute times
  double cpu_scatter = -1;
  /// the largest share of a training run's time the network takes at Net_Constant 1; -1 when not measured
  double training_network_share = -1;
  /// Net_Constant's relative uncertainty, its standard error and the CPU side's scatter read as network on the
  /// most network-heavy training run; the band carries it times the network's share of a prediction (-1: the
  /// standard error alone)
  double net_constant_uncertainty = -1;
  /// the largest training count, and the inputs fitted by a non-constant form through training points that go
  /// up and down with n (a line through noise): past that count the band spans the input held at its value there
  int largest_training_procs = 0;
  bool work_growth_through_noise = false;
  bool sends_through_noise = false;
  std::vector<std::string> warnings;  ///< what the fit cannot vouch for
  Reliability reliability;            ///< validation on held-out runs
  /// Where the model came from: generator, platform, training runs.
  nlohmann::json provenance = nlohmann::json::object();
};

enum class MvaSolver { Automatic, Exact, Approximate };

/// Largest multiclass_exact_cost solved exactly by MvaSolver::Automatic.
constexpr double kExactMultiClassBudget = 5e7;

/// Processes per host (host index -> count).
using HostCounts = std::map<int, int>;

struct Prediction {
  int procs = 0;
  double time_s = 0;
  double response_s = 0; ///< R, per cycle (with node classes, the slowest class's)
  double cycles = 0;     ///< s(n)
  std::string bottleneck; ///< busiest station
  double bottleneck_utilization = 0;
  bool exact = true;
};

/// Messages and bytes of a whole run of n processes on the process grid or in the halo exchange, and in the
/// collectives expanded at n; none without them. Throws Error when a grid file names no grid for n.
GridTraffic structured_traffic(const QueueingModel& model, double procs);

/// s(n) as the network uses it: the curve plus the grid exchange's messages; 1 for one process.
double cycles_at(const QueueingModel& model, double procs);

/// m(n) as the network uses it: from B(n) when fitted, else the m(n) curve.
double message_bytes_at(const QueueingModel& model, double procs);

/// The messages of a run of n processes by their size (their counts, or shares, as weights): with a process
/// grid, each class at its size on n's grid and the traffic beside it as its own mix at its own mean; else the
/// training runs' mix at m(n). SMPI's latency and bandwidth factors are taken per size.
std::vector<SizeAt> message_sizes_at(const QueueingModel& model, double procs);

/// SMPI's mean latency factor and mean per-byte time factor over those messages (each with SMPI's 16-byte
/// envelope); 1 and 1 when the model is not of SMPI runs.
std::pair<double, double> smpi_factors_at(const QueueingModel& model, double procs);

/// The busiest receiving rank's share of all bytes at n processes, within [1/n, 1].
double hot_receive_share_at(const QueueingModel& model, double procs);

/// The busiest receiving rank's share of all bytes sent, and of all messages sent, at n, within [0, 1].
std::pair<double, double> hot_send_shares_at(const QueueingModel& model, double procs);

/// The total work W(n) = W g(n) of a run of n processes, in flops.
double work_at(const QueueingModel& model, double procs);

/// Host counts of a run's placement on a platform; throws Error naming a missing host.
HostCounts host_counts(const MeasuredRun& run, const Platform& platform);

/// The model's prediction for a placement.
Prediction predict_run_time(const QueueingModel& model, const Platform& platform, const HostCounts& placement,
                            MvaSolver solver = MvaSolver::Automatic);

/// The single-class queueing network of the paper for a placement (for explanation and tests); with
/// node_classes, its demands are the class network's, weighted by the classes' shares of the processes.
ClosedNetwork build_network(const QueueingModel& model, const Platform& platform, const HostCounts& placement);

/// The network with one class per node of the placement: a node's processes
/// compute on its CPU, send through its send queue and receive at the
/// receivers' nodes as the traffic goes, and pay their messages' latency.
MultiClassNetwork build_class_network(const QueueingModel& model, const Platform& platform,
                                      const HostCounts& placement);

/// Which form of the model to fit.
struct ModelVariant {
  bool duplex_nic = true;
  bool latency_delay = true;
  bool local_via_nic = true;
  bool run_bytes = true;   ///< fit B(n) = n s(n) m(n) and derive m(n) from it (else fit m(n), as the paper)
  /// the busiest receiver's shares of the bytes received and sent from the runs (else uniform partners, eq. 9)
  bool hot_receiver = true;
  bool other_partners = true; ///< partners among the n-1 other processes (else among all n, eq. 9)
  /// time messages with the network model the runs came from (SMPI's factors for `replay --json` runs)
  bool network_factors = true;
  /// one customer class per node (else the paper's single class)
  bool node_classes = true;
  /// inputs from the runs' traffic structure: a grid halo exchange from the partner lists, the size mix
  bool traffic_structure = true;
  /// with traffic_structure, a rank's messages to itself as measured: at one process the one-process run's
  /// (one_process_traffic), beside the curves a class of their own (SelfTraffic) rather than spread by the curves
  /// over the other nodes
  bool self_traffic = true;
  /// the runs' recorded work fitted in n where a form wins by leave-one-out (the forms: fit_work_growth in
  /// src/qn/QueueingModel.cpp), else W constant as the paper; on by default (its effect on the study: docs/models.md)
  bool work_growth = true;
  /// a node's processes as one customer in lockstep, its CPU phase the slowest
  /// rank's (needs node_classes; else each process a customer, as the paper)
  bool lockstep = true;
  /// Net_Constant kept at 1 unless the training runs identify it (net_constant_identified); off by default: it
  /// failed its held-out criterion (docs/models.md)
  bool identify_network = false;
  /// Net_Constant kept at 1 when the fit's own standard error of it passes 100% (its one-sigma interval reaches 0,
  /// as when every training run has one process a node and the network shrinks with n like the computation): a
  /// constant the runs cannot pin takes the platform's value (docs/models.md); `fit qn
  /// --free-network` keeps the fitted value
  bool hold_loose_network = true;
  /// the process grid rules to class the point-to-point traffic on, in the order tried (grid_rules_from_spec);
  /// empty: detection (MPI_Dims_create's 1-, 2- and 3-D grids, strict)
  std::vector<GridRule> grid_rules;
  /// the rules were given by the user: the first that classes the traffic without far pairs is taken, even pairs
  /// or not
  bool grid_given = false;
  /// Saad et al. exactly: one network queue per node, no start-up time, local
  /// messages on the CPU, m(n) fitted directly, uniform partners among all n.
  static ModelVariant paper()
  {
    ModelVariant v{false, false, false, false, false, false, false, false, false, false, false, false};
    v.hold_loose_network = false;
    return v;
  }
};

/// The share of the predicted time of a placement that the network takes (transfers and latencies): 1 - the
/// prediction with Net_Constant 0 over the prediction.
double network_share(const QueueingModel& model, const Platform& platform, const HostCounts& placement);

/// Whether runs identify Net_Constant: its whole effect on the most network-heavy run, share_max |nc - 1|,
/// exceeds twice the CPU side's scatter (a CPU form that misses by that much would be read as network).
bool net_constant_identified(double nc, double share_max, double cpu_scatter);

/// Whether points (in increasing n) go up and down: consecutive differences change sign.
bool goes_up_and_down(const std::vector<double>& n, const std::vector<double>& y);

/// Fits a model to runs measured on `platform`. Throws Error when there are
/// fewer runs than the two constants, when the runs cannot tell the two
/// constants apart (for example all at one process count and placement), or
/// when the fit cannot converge; warns when no run is left to check the fit.
QueueingModel fit_queueing_model(const std::vector<MeasuredRun>& runs, const Platform& platform,
                                 ModelVariant variant = ModelVariant{});

/// Amdahl's law as Shi et al. apply it: T(n) = serial + parallel / n, fitted
/// by least squares to the same runs, blind to placement and heterogeneity.
struct AmdahlModel {
  double serial_s = 0;
  double parallel_s = 0;
  double predict(int procs) const { return serial_s + parallel_s / procs; }
};
AmdahlModel fit_amdahl(const std::vector<MeasuredRun>& runs);

nlohmann::json model_to_json(const QueueingModel& model, const AmdahlModel& amdahl);
/// Reads a model file written by model_to_json; errors name the file and field.
std::pair<QueueingModel, AmdahlModel> model_from_json(const std::string& text, const std::string& path);

/// The model's grid classes laid on another rule of the same dimensionality: a grid file's grids (grid_file not
/// empty), else MPI_Dims_create's rule of the spec's axes, with the model's orientation and periodicity unless
/// the spec names them (":periodic", ":transposed"). Throws Error naming `model_name` when the model has no grid,
/// and the spec or file when the axes differ.
void regrid_queueing_model(QueueingModel& model, const std::string& grid_spec, const std::string& grid_file,
                           const std::string& model_name);

} // namespace perfcast
