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
  double bw = 0;
  for (int l : r.links) {
    double b = platform.links()[static_cast<std::size_t>(l)].bandwidth_Bps;
    bw = bw == 0 ? b : std::min(bw, b);
  }
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
// fitted on runs that send says at n = 1
GridTraffic structured_traffic(const QueueingModel& model, double n)
{
  if (n < 2)
    return {};
  int procs = static_cast<int>(std::lround(n));
  if (model.grid)
    return grid_traffic(*model.grid, procs);
  if (model.halo)
    return halo_traffic(*model.halo, procs);
  return {};
}

double cycles_at(const QueueingModel& model, double n)
{
  if (n < 2)
    return 1.0;
  return std::max(model.sends(n) + structured_traffic(model, n).messages / n, 1e-12);
}

double message_bytes_at(const QueueingModel& model, double n)
{
  if (!model.run_bytes)
    return std::max(model.message_bytes(n), 0.0);
  // m(n) = B(n) / (n s(n)): the bytes a run sends, spread over its messages
  double messages = n * cycles_at(model, n);
  return (std::max((*model.run_bytes)(n), 0.0) + structured_traffic(model, n).bytes) / messages;
}

double hot_receive_share_at(const QueueingModel& model, double n)
{
  double uniform = 1 / std::max(n, 1.0);
  if (!model.hot_receive)
    return uniform;
  return std::clamp((*model.hot_receive)(n), uniform, 1.0);
}

namespace {

// Where a message of one process of node c goes: visits[c][j], per cycle of
// that process, the chance that its message is received on node j (a message
// a process sends to itself goes nowhere). Senders are uniform (every
// process sends one message a cycle). Receivers: the busiest, on the
// placement's first node, has weight h, the others (1-h)/(n-1) each (h = 1/n:
// uniform); a plain process sends by weight (among the n-1 others with
// `others`), the busiest to the others evenly. The one-class network takes
// these weighted by the nodes' shares (node_traffic).
std::vector<std::vector<double>> class_traffic(const std::vector<int>& counts, double n, double hot, bool others)
{
  std::size_t nodes = counts.size();
  std::vector<std::vector<double>> visits(nodes, std::vector<double>(nodes, 0.0));
  if (n < 2)
    return visits;
  double other = (1 - hot) / (n - 1);
  double norm = others ? 1 - other : 1.0;
  for (std::size_t c = 0; c < nodes; ++c) {
    double plain = c == 0 ? counts[c] - 1 : counts[c]; // sources on c other than the busiest receiver
    for (std::size_t j = 0; j < nodes; ++j) {
      double weight = j == 0 ? hot + (counts[j] - 1) * other : counts[j] * other; // node j's share as a receiver
      double from_plain = (weight - (j == c ? other : 0.0)) / norm;
      double from_hot = 0;
      if (c == 0)
        from_hot = others ? (counts[j] - (j == 0 ? 1.0 : 0.0)) / (n - 1) : weight - (j == 0 ? hot : 0.0);
      visits[c][j] = std::max(0.0, (plain * from_plain + from_hot) / counts[c]);
    }
  }
  return visits;
}


// Where a cycle's message goes, per node: the chance it leaves the node for
// another, enters it from another, or stays between two of its processes:
// class_traffic's visits weighted by the nodes' shares n_c/n (a cycle is one
// process's, chosen uniformly). With `others`, a process sends to one of the
// n-1 others in proportion to their weights (the busiest receiver itself
// sends to the others evenly); without, as the paper's eq. 9, its partner may
// be itself, which halves a 2-process run's network traffic.
struct NodeTraffic {
  double out = 0, in = 0, local = 0;
};

std::vector<NodeTraffic> node_traffic(const HostCounts& placement, double n, double hot, bool others)
{
  std::vector<int> counts;
  for (const auto& [host, count] : placement)
    counts.push_back(count);
  std::vector<NodeTraffic> t(counts.size());
  auto visits = class_traffic(counts, n, hot, others);
  for (std::size_t c = 0; c < counts.size(); ++c) {
    if (counts[c] <= 0)
      continue;
    double share = counts[c] / n;
    for (std::size_t j = 0; j < counts.size(); ++j) {
      double flow = share * visits[c][j];
      if (j == c) {
        t[c].local += flow;
      } else {
        t[c].out += flow;
        t[j].in += flow;
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
  // perfcast: runs simulated by SimGrid's SMPI network (perfcast replay's
  // default) paid each message's route latency times lat_factor and moved it
  // at the bandwidth times bw_factor, both piecewise in its size (envelope
  // included); the paper has one T_w per byte whatever the size. Without the
  // factors, Net_Constant fitted where messages are large (factor 0.94) is
  // wrong by up to 1.6 times where they are small
  constexpr double kEnvelopeBytes = 16;
  // (per size class when the runs reported their sizes: a 64-byte message pays
  // the small messages' latency factor even when the mean is 100 kB)
  auto [latency_factor, per_byte_factor] =
      model.smpi_factors ? smpi_mixed_factors(model.size_mix, m, kEnvelopeBytes) : std::pair{1.0, 1.0};
  std::vector<NodeTraffic> traffic = node_traffic(placement, n, hot_receive_share_at(model, n), model.other_partners);
  ClosedNetwork net;
  double sent_s = 0, received_s = 0; // a cycle's demand at all send queues, and at all receive queues
  std::size_t node = 0;
  for (const auto& [host, count] : placement) {
    const Host& h = platform.hosts()[static_cast<std::size_t>(host)];
    const NodeTraffic& t = traffic[node++];
    double ni = count, share = ni / n, rest = (n - ni) / n, local = (ni - 1) / n;
    double v_cpu = share * model.v_comp + share * local * model.v_comm + rest * share * model.v_comm; // eq. 8
    double s_cpu = model.work_flops / (s * n * h.speed_flops);                                         // eq. 3, 6
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
    double startup = (t.out * nic.startup_s + (self.exists ? t.local * self.startup_s : 0.0)) * latency_factor;
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
  constexpr double kEnvelopeBytes = 16; // as build_network: SMPI's factors per size class
  auto [latency_factor, per_byte_factor] =
      model.smpi_factors ? smpi_mixed_factors(model.size_mix, m, kEnvelopeBytes) : std::pair{1.0, 1.0};
  auto visits = class_traffic(counts, n, hot_receive_share_at(model, n), model.other_partners);
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
    cls.demand_s[cpu[c]] = v_cpu * model.work_flops / (s * n * h.speed_flops);
    // its message leaves through its own node's send queue and enters the
    // receiver's node; one between two processes of its node crosses the
    // node's own links when the platform routes it so (no loopback)
    double sent = 0, received = 0, startup = 0;
    for (std::size_t j = 0; j < nodes; ++j) {
      double v = visits[c][j];
      if (v <= 0 || (j == c && !self[c].exists))
        continue;
      cls.demand_s[out[c]] += v * s_net[c];
      cls.demand_s[in[j]] += v * s_net[j];
      sent += v * s_net[c];
      received += v * s_net[j];
      startup += v * (j == c ? self[c].startup_s : nic[c].startup_s);
    }
    if (model.latency_delay)
      cls.demand_s[latency[c]] = startup * latency_factor * model.net_constant;
    // a transfer holds its sender's up link and its receiver's down link at
    // once: counted once (see build_network)
    if (model.duplex_nic)
      cls.overlap_s = std::min(sent, received);
    net.classes.push_back(std::move(cls));
  }
  return net;
}

} // namespace perfcast
