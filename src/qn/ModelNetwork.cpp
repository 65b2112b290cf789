// The queueing network a fitted model builds for a placement: the paper's
// single-class network (eq. 3 to 9, build_network) and perfcast's network
// with one customer class per node (build_class_network).
#include "qn/QueueingModel.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {

namespace {

// Network start-up and per-byte time of a route: its latency and the
// inverse of its smallest bandwidth.
struct Nic {
  double startup_s = 0;
  double per_byte_s = 0;
  bool exists = false;
};

Nic nic_of_route(const Platform& platform, int src, int dst)
{
  if (!platform.has_route(src, dst))
    return {};
  Route r = platform.route(src, dst);
  if (r.links.empty())
    return {};
  double bw = platform.narrowest_bandwidth(r);
  return {r.latency_s, bw > 0 ? 1.0 / bw : 0.0, true};
}

// The route of a host's messages to itself when it crosses the host's own
// NIC (shares a link with its route to another host), as in a SimGrid cluster
// without loopback; none when a loopback or nothing carries them.
Nic self_route_via_nic(const Platform& platform, int host)
{
  if (!platform.has_route(host, host))
    return {};
  Route self = platform.route(host, host);
  int n = static_cast<int>(platform.hosts().size());
  for (int other = 0; other < n; ++other) {
    if (other == host || !platform.has_route(host, other))
      continue;
    Route away = platform.route(host, other);
    for (int l : self.links)
      if (std::find(away.links.begin(), away.links.end(), l) != away.links.end())
        return nic_of_route(platform, host, host);
    return {};
  }
  return nic_of_route(platform, host, host); // a one-host platform: its only route
}

// A host's NIC as seen by messages to another host; none on a one-host platform.
Nic nic_of(const Platform& platform, int host)
{
  int n = static_cast<int>(platform.hosts().size());
  for (int other = 0; other < n; ++other)
    if (other != host && platform.has_route(host, other))
      return nic_of_route(platform, host, other);
  return {};
}

} // namespace

// s(n) as the network uses it: with one process, T = V_comp W / speed for
// any s (eq. 3, 8, 10), so one cycle stands for the run, whatever a curve
// fitted on runs that send says at n = 1; but a periodic halo whose sides of
// 1 wrap onto the rank sends it messages even then (CoMD), which cross its
// host's own links on a platform without loopback
GridTraffic structured_traffic(const QueueingModel& model, double n)
{
  if (n < 2 && model.one_process_traffic)
    return *model.one_process_traffic; // measured: a lone rank sends only itself
  int procs = static_cast<int>(std::lround(std::max(n, 1.0)));
  GridTraffic t = model.grid ? grid_class_traffic(*model.grid, procs)
                  : model.halo ? halo_traffic(*model.halo, procs)
                               : GridTraffic{};
  if (model.collectives)
    t += collective_traffic_at(model.collectives->types, procs);
  if (model.self_traffic)
    t += model.self_traffic->at(procs);
  return t;
}

double cycles_at(const QueueingModel& model, double n)
{
  if (n < 2) {
    double to_itself = structured_traffic(model, n).self_messages;
    return to_itself > 0 ? to_itself : 1.0;
  }
  return std::max(model.sends(n) + structured_traffic(model, n).messages / n, 1e-12);
}

double message_bytes_at(const QueueingModel& model, double n)
{
  if (n < 2) {
    GridTraffic t = structured_traffic(model, n);
    if (t.self_messages > 0)
      return t.self_bytes / t.self_messages;
  }
  if (!model.run_bytes)
    return std::max(model.message_bytes(n), 0.0);
  // m(n) = B(n) / (n s(n)): the bytes a run sends, spread over its messages
  double messages = n * cycles_at(model, n);
  return (std::max((*model.run_bytes)(n), 0.0) + structured_traffic(model, n).bytes) / messages;
}

std::vector<SizeAt> message_sizes_at(const QueueingModel& model, double n)
{
  if (model.self_traffic && n < 2) // a lone rank's messages are all to itself: as many as cycles_at counts
    return model.self_traffic->sizes_of(structured_traffic(model, n));
  if (!(model.size_mix_of_rest && (model.grid || model.collectives || model.self_traffic) && !model.halo && n >= 2))
    return sizes_at_mean(model.size_mix, message_bytes_at(model, n));
  // perfcast's refinement: a grid class and a collective keep their own sizes
  // at n (a transpose's blocks shrink as 1/n^2 while its collectives'
  // messages stay small); a mix taken from the largest training run relative
  // to its mean would move every size with the mean, and carry a block across
  // one of SMPI's size steps that its true size never crosses
  int procs = static_cast<int>(std::lround(n));
  std::vector<SizeAt> sizes;
  if (model.grid)
    sizes = grid_class_traffic(*model.grid, procs).sizes;
  if (model.collectives)
    for (const auto& [size, messages] : collective_traffic_at(model.collectives->types, procs).sizes)
      sizes.push_back({size, messages});
  if (model.self_traffic)
    for (const SizeAt& s : model.self_traffic->sizes_at(n))
      sizes.push_back(s);
  double messages = std::max(n * model.sends(n), 0.0);
  double bytes = model.run_bytes ? std::max((*model.run_bytes)(n), 0.0) : messages * std::max(model.message_bytes(n), 0.0);
  if (messages > 0)
    for (const SizeAt& s : sizes_at_mean(model.size_mix, bytes / messages))
      sizes.push_back({s.bytes, s.messages * messages});
  return sizes;
}

std::pair<double, double> smpi_factors_at(const QueueingModel& model, double n)
{
  // perfcast: runs simulated by SimGrid's SMPI network (perfcast replay's
  // default) paid each message's route latency times lat_factor and moved it
  // at the bandwidth times bw_factor, both piecewise in its size (envelope
  // included); the paper has one T_w per byte whatever the size. Without the
  // factors, Net_Constant fitted where messages are large (factor 0.94) is
  // wrong by up to 1.6 times where they are small. Per size when the runs
  // reported their sizes: a 64-byte message pays the small messages' latency
  // factor even when the mean is 100 kB
  constexpr double kEnvelopeBytes = 16;
  if (!model.smpi_factors)
    return {1.0, 1.0};
  return smpi_mixed_factors(message_sizes_at(model, n), kEnvelopeBytes);
}

double work_at(const QueueingModel& model, double n)
{
  return model.work_flops * (model.work_growth ? std::max((*model.work_growth)(n), 1e-9) : 1.0);
}

std::pair<double, double> hot_send_shares_at(const QueueingModel& model, double n)
{
  double uniform = 1 / std::max(n, 1.0);
  auto at = [&](const std::optional<Curve>& c) { return c ? std::clamp((*c)(n), 0.0, 1.0) : uniform; };
  return {at(model.hot_send), at(model.hot_send_messages)};
}

double hot_receive_share_at(const QueueingModel& model, double n)
{
  double uniform = 1 / std::max(n, 1.0);
  if (model.collectives && model.hot_receive && !model.halo && n >= 2) {
    // each rank receives what the collectives' algorithms and the grid's classes send it at n (a reduce's root
    // n - 1 blocks a call), the traffic beside them as its own busiest share says
    int procs = static_cast<int>(std::lround(n));
    std::vector<double> received = collective_traffic_at(model.collectives->types, procs).received;
    if (model.grid) {
      ClassTrafficAt at = grid_class_traffic(*model.grid, procs);
      for (std::size_t r = 0; r < received.size(); ++r)
        received[r] += at.received[r];
    }
    double rest = model.run_bytes ? std::max((*model.run_bytes)(n), 0.0) : 0.0;
    const std::optional<Curve>& root = model.collectives->rest_hot_receive;
    return busiest_receive_share(received, rest, root ? (*root)(n) : uniform);
  }
  if (model.grid && model.hot_receive && n >= 2) {
    // the grid's ranks receive what their classes send them, the traffic beside it as its own busiest share says
    ClassTrafficAt at = grid_class_traffic(*model.grid, static_cast<int>(std::lround(n)));
    double rest = model.run_bytes ? std::max((*model.run_bytes)(n), 0.0) : 0.0;
    return grid_hot_receive_share(*model.grid, at, rest);
  }
  if (!model.hot_receive)
    return uniform;
  return std::clamp((*model.hot_receive)(n), uniform, 1.0);
}

namespace {

// The shares of a run's bytes and messages that its ranks send themselves
// (a periodic halo's sides of 1): these stay on the sender's node.
std::pair<double, double> self_shares_at(const QueueingModel& model, double n)
{
  GridTraffic t = structured_traffic(model, n);
  if (!(t.self_messages > 0))
    return {0.0, 0.0};
  double messages = std::max(n, 1.0) * cycles_at(model, n), bytes = messages * message_bytes_at(model, n);
  return {bytes > 0 ? std::min(1.0, t.self_bytes / bytes) : 0.0, std::min(1.0, t.self_messages / messages)};
}

// Where the messages of one process of node c go: bytes[c][j], per cycle of
// that process, its bytes received on node j in units of the mean message
// (a message a process sends to itself by the model's general traffic goes
// nowhere; the shares `to_itself` of bytes and messages that a structured
// exchange sends a rank itself stay on c); messages[c][j] the
// same in messages (their latencies). The busiest receiver, on the
// placement's first node, gets a share h of all bytes and sends a share g of
// them (g_msg of the messages); the other n-1 ranks send the rest evenly.
// With `others` a rank's partners are the n-1 others: the busiest sends to
// them evenly, a plain rank sends q = h / (1-g) of its bytes to the busiest
// (so that it receives h of the run's bytes; all of them at 2 processes) and
// the rest evenly to the other plain ranks. g = h = 1/n is uniform traffic
// among the others; g = 0, h = 1 a reduce's root, whose node sends nothing.
// Without `others` (the paper's eq. 9) senders are uniform and a plain
// process sends by the receivers' weights, itself included. The one-class
// network takes these weighted by the nodes' shares (node_traffic).
struct ClassTraffic {
  std::vector<std::vector<double>> bytes, messages;
};

ClassTraffic spread_traffic(const std::vector<int>& counts, double n, double hot, std::pair<double, double> sent,
                            bool others)
{
  std::size_t nodes = counts.size();
  ClassTraffic t{std::vector<std::vector<double>>(nodes, std::vector<double>(nodes, 0.0)), {}};
  if (n < 2) {
    t.messages = t.bytes;
    return t;
  }
  if (!others) {
    double other = (1 - hot) / (n - 1);
    for (std::size_t c = 0; c < nodes; ++c) {
      double plain = c == 0 ? counts[c] - 1 : counts[c]; // sources on c other than the busiest receiver
      for (std::size_t j = 0; j < nodes; ++j) {
        double weight = j == 0 ? hot + (counts[j] - 1) * other : counts[j] * other; // node j's share as a receiver
        double from_plain = weight - (j == c ? other : 0.0);
        double from_hot = c == 0 ? weight - (j == 0 ? hot : 0.0) : 0.0;
        t.bytes[c][j] = std::max(0.0, (plain * from_plain + from_hot) / counts[c]);
      }
    }
    t.messages = t.bytes;
    return t;
  }
  auto [sent_bytes, sent_messages] = sent;
  double q = n < 3 || sent_bytes >= 1 ? 1.0 : std::min(1.0, hot / (1 - sent_bytes)); // plain ranks' share to the busiest
  t.messages = t.bytes;
  for (std::size_t c = 0; c < nodes; ++c) {
    double plain = c == 0 ? counts[c] - 1 : counts[c]; // sources on c other than the busiest receiver
    for (std::size_t j = 0; j < nodes; ++j) {
      double plain_j = j == 0 ? counts[j] - 1 : counts[j];
      double to_plain = n < 3 ? 0.0 : (plain_j - (j == c ? 1.0 : 0.0)) / (n - 2);
      double from_plain = (j == 0 ? q : 0.0) + (1 - q) * to_plain;           // one plain rank's destinations
      double from_hot = c == 0 ? (counts[j] - (j == 0 ? 1.0 : 0.0)) / (n - 1) : 0.0; // the busiest's
      // a rank's amount relative to the mean rank's
      for (auto [share, out] : {std::pair{sent_bytes, &t.bytes}, std::pair{sent_messages, &t.messages}}) {
        double hot_weight = share * n, plain_weight = (1 - share) * n / (n - 1);
        (*out)[c][j] = std::max(0.0, (plain * plain_weight * from_plain + hot_weight * from_hot) / counts[c]);
      }
    }
  }
  return t;
}

ClassTraffic class_traffic(const std::vector<int>& counts, double n, double hot, std::pair<double, double> sent,
                           bool others, std::pair<double, double> to_itself)
{
  ClassTraffic t = spread_traffic(counts, n, hot, sent, others);
  auto [self_bytes, self_messages] = to_itself;
  for (std::size_t c = 0; c < counts.size(); ++c)
    for (std::size_t j = 0; j < counts.size(); ++j) {
      t.bytes[c][j] = (1 - self_bytes) * t.bytes[c][j] + (j == c ? self_bytes : 0.0);
      t.messages[c][j] = (1 - self_messages) * t.messages[c][j] + (j == c ? self_messages : 0.0);
    }
  return t;
}

// Where a cycle's message goes, per node: the chance it leaves the node for
// another, enters it from another, or stays between two of its processes:
// class_traffic's visits weighted by the nodes' shares n_c/n (a cycle is one
// process's, chosen uniformly). With `others`, a process sends to one of the
// n-1 others in proportion to their weights (the busiest receiver itself
// sends to the others evenly); without, as the paper's eq. 9, its partner may
// be itself, which halves a 2-process run's network traffic.
struct NodeTraffic {
  double out = 0, in = 0, local = 0; ///< in mean messages' bytes
  double out_messages = 0, local_messages = 0; ///< in messages, for their latency
};

std::vector<NodeTraffic> node_traffic(const HostCounts& placement, double n, double hot,
                                      std::pair<double, double> sent, bool others, std::pair<double, double> to_itself)
{
  std::vector<int> counts;
  for (const auto& [host, count] : placement)
    counts.push_back(count);
  std::vector<NodeTraffic> t(counts.size());
  auto visits = class_traffic(counts, n, hot, sent, others, to_itself);
  for (std::size_t c = 0; c < counts.size(); ++c) {
    if (counts[c] <= 0)
      continue;
    double share = counts[c] / n;
    for (std::size_t j = 0; j < counts.size(); ++j) {
      double flow = share * visits.bytes[c][j], messages = share * visits.messages[c][j];
      if (j == c) {
        t[c].local += flow;
        t[c].local_messages += messages;
      } else {
        t[c].out += flow;
        t[j].in += flow;
        t[c].out_messages += messages;
      }
    }
  }
  return t;
}

} // namespace

ClosedNetwork build_network(const QueueingModel& model, const Platform& platform, const HostCounts& placement)
{
  double n = 0;
  for (const auto& [host, count] : placement)
    n += count;
  if (n < 1)
    throw Error("placement has no process");
  double s = cycles_at(model, n);
  double m = message_bytes_at(model, n);
  auto [latency_factor, per_byte_factor] = smpi_factors_at(model, n);
  std::vector<NodeTraffic> traffic =
      node_traffic(placement, n, hot_receive_share_at(model, n), hot_send_shares_at(model, n), model.other_partners,
                   self_shares_at(model, n));
  ClosedNetwork net;
  double sent_s = 0, received_s = 0; // a cycle's demand at all send queues, and at all receive queues
  std::size_t node = 0;
  for (const auto& [host, count] : placement) {
    const Host& h = platform.hosts()[static_cast<std::size_t>(host)];
    const NodeTraffic& t = traffic[node++];
    double ni = count, share = ni / n, rest = (n - ni) / n, local = (ni - 1) / n;
    double v_cpu = share * model.v_comp + share * local * model.v_comm + rest * share * model.v_comm; // eq. 8
    double s_cpu = work_at(model, n) / (s * n * h.speed_flops);                                        // eq. 3, 6
    Nic nic = nic_of(platform, host);
    // perfcast: when the platform routes a host's messages to itself over its
    // own links (a SimGrid cluster without loopback), local messages queue at
    // the NIC like remote ones; the paper counts them as CPU overhead only
    Nic self = model.local_via_nic ? self_route_via_nic(platform, host) : Nic{};
    if (!nic.exists)
      nic = self;
    double v_out = t.out + (self.exists ? t.local : 0.0); // first term of eq. 9
    double v_in = t.in + (self.exists ? t.local : 0.0);   // second term of eq. 9
    // eq. 4, 5, 7: Net_Constant corrects the whole message time, start-up included
    double s_net = m * nic.per_byte_s * per_byte_factor * model.net_constant;
    net.stations.push_back({h.name + ".cpu", StationKind::MultiServer, v_cpu * s_cpu, h.cores, {}});
    if (model.duplex_nic) {
      // messages leaving and entering node i queue apart
      net.stations.push_back({h.name + ".net-out", StationKind::Queue, v_out * s_net, 1, {}});
      net.stations.push_back({h.name + ".net-in", StationKind::Queue, v_in * s_net, 1, {}});
      sent_s += v_out * s_net;
      received_s += v_in * s_net;
    } else {
      net.stations.push_back({h.name + ".net", StationKind::Queue, (v_out + v_in) * s_net, 1, {}});
    }
    // the start-up time the paper sets to 0: paid once by every message that
    // leaves node i over a link, but pipelined, so a delay rather than a share
    // of the NIC
    double startup =
        (t.out_messages * nic.startup_s + (self.exists ? t.local_messages * self.startup_s : 0.0)) * latency_factor;
    if (model.latency_delay && startup > 0)
      net.stations.push_back({h.name + ".latency", StationKind::Delay, startup * model.net_constant, 1, {}});
  }
  // a transfer holds its sender's up link and its receiver's down link at the
  // same time: unhindered, it takes one transfer time, not the sum of the two
  // queues' services. The smaller total is served twice in the residences;
  // counted once, a lone message costs m T_w and a saturated queue still
  // bounds the throughput. Without it Net_Constant halved to fit small runs
  // and then halved the contention of large ones
  if (model.duplex_nic)
    net.overlap_s = std::min(sent_s, received_s);
  return net;
}



MultiClassNetwork build_class_network(const QueueingModel& model, const Platform& platform,
                                      const HostCounts& placement)
{
  std::vector<int> hosts, counts;
  double n = 0;
  for (const auto& [host, count] : placement)
    if (count > 0) {
      hosts.push_back(host);
      counts.push_back(count);
      n += count;
    }
  if (n < 1)
    throw Error("placement has no process");
  double s = cycles_at(model, n);
  double m = message_bytes_at(model, n);
  auto [latency_factor, per_byte_factor] = smpi_factors_at(model, n);
  auto visits = class_traffic(counts, n, hot_receive_share_at(model, n), hot_send_shares_at(model, n),
                              model.other_partners, self_shares_at(model, n));
  std::size_t nodes = hosts.size();
  // each node's stations in build_network's order and names: cpu, then
  // net-out and net-in (the paper's one net queue without duplex), then the
  // latency delay its own processes pay
  MultiClassNetwork net;
  std::vector<std::size_t> cpu(nodes), out(nodes), in(nodes), latency(nodes);
  std::vector<Nic> nic(nodes), self(nodes);
  std::vector<double> s_net(nodes);
  for (std::size_t i = 0; i < nodes; ++i) {
    const Host& h = platform.hosts()[static_cast<std::size_t>(hosts[i])];
    nic[i] = nic_of(platform, hosts[i]);
    self[i] = model.local_via_nic ? self_route_via_nic(platform, hosts[i]) : Nic{};
    if (!nic[i].exists)
      nic[i] = self[i];
    s_net[i] = m * nic[i].per_byte_s * per_byte_factor * model.net_constant; // eq. 4, 5, 7
    cpu[i] = net.stations.size();
    net.stations.push_back({h.name + ".cpu", StationKind::MultiServer, 0, h.cores, {}});
    out[i] = net.stations.size();
    if (model.duplex_nic) {
      net.stations.push_back({h.name + ".net-out", StationKind::Queue, 0, 1, {}});
      in[i] = net.stations.size();
      net.stations.push_back({h.name + ".net-in", StationKind::Queue, 0, 1, {}});
    } else {
      in[i] = out[i];
      net.stations.push_back({h.name + ".net", StationKind::Queue, 0, 1, {}});
    }
    latency[i] = net.stations.size();
    net.stations.push_back({h.name + ".latency", StationKind::Delay, 0, 1, {}});
  }
  for (std::size_t c = 0; c < nodes; ++c) {
    const Host& h = platform.hosts()[static_cast<std::size_t>(hosts[c])];
    CustomerClass cls;
    cls.name = h.name;
    cls.population = counts[c];
    cls.demand_s.assign(net.stations.size(), 0.0);
    // eq. 8 per process: its own core computes V_comp and spends V_comm
    // (n-1)/n in MPI (summed over the nodes with weights n_c/n, eq. 8's
    // n_i/n V_comp + n_i/n (n_i-1)/n V_comm + (n-n_i)/n n_i/n V_comm); eq. 3, 6
    double v_cpu = model.v_comp + model.v_comm * (n - 1) / n;
    cls.demand_s[cpu[c]] = v_cpu * work_at(model, n) / (s * n * h.speed_flops);
    // perfcast's refinement: processes that compute and exchange in lockstep
    // never overlap one's transfer with another's computation, as separate
    // customers would. The node's processes are one customer: its CPU phase
    // lasts as long as the slowest process alone on a core (imbalance I times
    // the mean) or the node's work shared by its cores, whichever is longer;
    // its transfers are all of theirs (scaled below); its latencies are paid
    // side by side, one process's
    double per_process = model.lockstep ? counts[c] : 1.0;
    if (model.lockstep) {
      cls.population = 1;
      double imbalance = n >= 2 ? std::max(model.imbalance, 1.0) : 1.0;
      cls.demand_s[cpu[c]] *= std::max(imbalance, per_process / h.cores);
    }
    // its message leaves through its own node's send queue and enters the
    // receiver's node; one between two processes of its node crosses the
    // node's own links when the platform routes it so (no loopback)
    double sent = 0, received = 0, startup = 0;
    for (std::size_t j = 0; j < nodes; ++j) {
      double v = per_process * visits.bytes[c][j];
      if (j == c && !self[c].exists)
        continue;
      cls.demand_s[out[c]] += v * s_net[c];
      cls.demand_s[in[j]] += v * s_net[j];
      sent += v * s_net[c];
      received += v * s_net[j];
      startup += visits.messages[c][j] * (j == c ? self[c].startup_s : nic[c].startup_s);
    }
    if (model.latency_delay)
      cls.demand_s[latency[c]] = startup * latency_factor * model.net_constant; // per process
    // a transfer holds its sender's up link and its receiver's down link at
    // once: counted once (see build_network)
    if (model.duplex_nic)
      cls.overlap_s = std::min(sent, received);
    net.classes.push_back(std::move(cls));
  }
  return net;
}

} // namespace perfcast
