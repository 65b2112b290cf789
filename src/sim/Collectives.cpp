#include "sim/Collectives.hpp"

#include "sim/CollectiveSchedule.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <stdexcept>

namespace perfcast {

using namespace collective;

namespace {

std::vector<std::uint64_t> uniform(int P, std::uint64_t bytes)
{
  return std::vector<std::uint64_t>(static_cast<std::size_t>(P), bytes);
}

std::string joined(const std::vector<std::string>& names)
{
  std::string list;
  for (const auto& n : names)
    list += (list.empty() ? "" : ", ") + n;
  return list;
}

// Choices are validated by CollectiveChoice::set, so reaching this is a bug in
// the registry or in expand_collective, not a user error.
[[noreturn]] void unknown_algorithm(const std::string& collective, const std::string& name)
{
  throw std::logic_error(fmt::format("{} algorithm '{}' is registered but not implemented", collective, name));
}

} // namespace

std::string CollectiveChoice::get(const std::string& collective) const
{
  auto it = algorithm.find(collective);
  return it == algorithm.end() ? "default" : it->second;
}

void CollectiveChoice::set(const std::string& spec)
{
  const auto& registry = collective_algorithms();
  auto eq = spec.find('=');
  if (eq == std::string::npos)
    throw Error(fmt::format("'{}': expected COLLECTIVE=ALGORITHM, such as bcast=linear", spec));
  std::string name = spec.substr(0, eq), alg = spec.substr(eq + 1);
  auto it = registry.find(name);
  if (it == registry.end()) {
    std::vector<std::string> names;
    for (const auto& entry : registry)
      names.push_back(entry.first);
    throw Error(fmt::format("'{}': no algorithm choice for '{}' (expected one of: {})", spec, name, joined(names)));
  }
  if (alg != "default" && std::find(it->second.begin(), it->second.end(), alg) == it->second.end())
    throw Error(fmt::format("'{}': unknown {} algorithm '{}' (expected one of: default, {})", spec, name, alg,
                            joined(it->second)));
  algorithm[name] = alg;
}

const std::map<std::string, std::vector<std::string>>& collective_algorithms()
{
  static const std::map<std::string, std::vector<std::string>> registry{
      {"barrier", {"linear", "dissemination"}},
      {"bcast", {"binomial", "linear"}},
      {"reduce", {"linear", "binomial"}},
      {"allreduce", {"reduce-bcast", "recursive-doubling", "ring", "rabenseifner"}},
      {"alltoall", {"ompi", "linear", "pairwise", "bruck"}},
      {"allgather", {"linear", "ring"}}};
  return registry;
}

bool is_rooted_collective(ActionType type)
{
  switch (type) {
  case ActionType::Bcast:
  case ActionType::Reduce:
  case ActionType::Gather:
  case ActionType::Gatherv:
  case ActionType::Scatter:
  case ActionType::Scatterv:
    return true;
  default:
    return false;
  }
}

double collective_payload_bytes(const Action& a, int rank)
{
  switch (a.type) {
  case ActionType::Barrier:
    return 0;
  case ActionType::Scatter:
  case ActionType::Scatterv:
    return static_cast<double>(a.recv_bytes);
  case ActionType::Alltoallv: {
    double others = 0;
    for (std::size_t i = 0; i < a.send_counts.size(); ++i)
      if (static_cast<int>(i) != rank)
        others += static_cast<double>(a.send_counts[i]);
    return a.send_counts.size() > 1 ? others / static_cast<double>(a.send_counts.size() - 1) : 0.0;
  }
  case ActionType::ReduceScatter: {
    double all = std::accumulate(a.recv_counts.begin(), a.recv_counts.end(), 0.0,
                                 [](double sum, std::uint64_t c) { return sum + static_cast<double>(c); });
    return a.recv_counts.empty() ? 0.0 : all / static_cast<double>(a.recv_counts.size());
  }
  default:
    return static_cast<double>(a.bytes);
  }
}

Action uniform_collective(ActionType type, std::uint64_t payload, int root, int size)
{
  Action a;
  a.type = type;
  a.partner = root;
  a.bytes = a.recv_bytes = type == ActionType::Barrier ? 0 : payload;
  if (type == ActionType::Alltoallv || type == ActionType::Scatterv)
    a.send_counts = uniform(size, payload);
  if (type == ActionType::Alltoallv || type == ActionType::Allgatherv || type == ActionType::Gatherv ||
      type == ActionType::ReduceScatter)
    a.recv_counts = uniform(size, payload);
  return a;
}

void expand_collective(const Action& a, int rank, int size, const CollectiveChoice& choice, std::vector<MicroOp>& out)
{
  Schedule s(rank, size, out);
  if (size == 1) {
    if (a.type == ActionType::Reduce || a.type == ActionType::Allreduce || a.type == ActionType::Scan ||
        a.type == ActionType::Exscan || a.type == ActionType::ReduceScatter)
      s.compute(a.value);
    return;
  }
  switch (a.type) {
  case ActionType::Barrier: {
    std::string alg = choice.get("barrier");
    if (alg == "default" || alg == "linear")
      barrier_linear(s);
    else if (alg == "dissemination")
      barrier_dissemination(s);
    else
      unknown_algorithm("barrier", alg);
    return;
  }
  case ActionType::Bcast: {
    std::string alg = choice.get("bcast");
    if (alg == "default" || alg == "binomial")
      bcast_binomial(s, a.partner, a.bytes);
    else if (alg == "linear")
      bcast_linear(s, a.partner, a.bytes);
    else
      unknown_algorithm("bcast", alg);
    return;
  }
  case ActionType::Reduce: {
    std::string alg = choice.get("reduce");
    if (alg == "default" || alg == "linear")
      reduce_linear(s, a.partner, a.bytes);
    else if (alg == "binomial")
      reduce_binomial(s, a.partner, a.bytes);
    else
      unknown_algorithm("reduce", alg);
    s.compute(a.value);
    return;
  }
  case ActionType::Allreduce: {
    std::string alg = choice.get("allreduce");
    if (alg == "default" || alg == "reduce-bcast") {
      reduce_linear(s, 0, a.bytes);
      bcast_binomial(s, 0, a.bytes);
    } else if (alg == "recursive-doubling") {
      allreduce_recursive_doubling(s, a.bytes);
    } else if (alg == "ring") {
      allreduce_ring(s, a.bytes);
    } else if (alg == "rabenseifner") {
      allreduce_rabenseifner(s, a.bytes);
    } else {
      unknown_algorithm("allreduce", alg);
    }
    s.compute(a.value);
    return;
  }
  case ActionType::Scan:
  case ActionType::Exscan:
    // SimGrid: receive from every lower rank, send to every higher rank
    for (int i = 0; i < rank; ++i)
      s.irecv(i, a.bytes, kScan);
    for (int i = rank + 1; i < size; ++i)
      s.isend(i, a.bytes, kScan);
    s.wait_group();
    s.compute(a.value);
    return;
  case ActionType::Alltoall: {
    std::string alg = choice.get("alltoall");
    if (alg == "default" || alg == "ompi")
      alg = alltoall_ompi_choice(size, a.bytes);
    if (alg == "linear")
      alltoall_basic_linear(s, a.bytes, a.recv_bytes);
    else if (alg == "pairwise")
      alltoall_pairwise(s, a.bytes, a.recv_bytes);
    else if (alg == "bruck")
      alltoall_bruck(s, a.bytes);
    else
      unknown_algorithm("alltoall", alg);
    return;
  }
  case ActionType::Alltoallv:
    all_pairs_linear(s, a.send_counts, a.recv_counts, kAlltoall, true);
    return;
  case ActionType::Allgather: {
    std::string alg = choice.get("allgather");
    if (alg == "default" || alg == "linear")
      all_pairs_linear(s, uniform(size, a.bytes), uniform(size, a.recv_bytes), kAllgather, false);
    else if (alg == "ring")
      ring_pass(s, a.bytes, kAllgather);
    else
      unknown_algorithm("allgather", alg);
    return;
  }
  case ActionType::Allgatherv:
    all_pairs_linear(s, uniform(size, a.bytes), a.recv_counts, kAllgather, false);
    return;
  case ActionType::Gather:
  case ActionType::Gatherv: {
    int root = a.partner;
    if (rank != root) {
      s.isend(root, a.bytes, kGather);
    } else {
      for (int i = 0; i < size; ++i)
        if (i != root)
          s.irecv(i, a.type == ActionType::Gatherv ? a.recv_counts[static_cast<std::size_t>(i)] : a.recv_bytes,
                  kGather);
    }
    s.wait_group();
    return;
  }
  case ActionType::Scatter:
  case ActionType::Scatterv: {
    int root = a.partner;
    if (rank != root) {
      s.irecv(root, a.recv_bytes, kScatter);
    } else {
      for (int i = 0; i < size; ++i)
        if (i != root)
          s.isend(i, a.type == ActionType::Scatterv ? a.send_counts[static_cast<std::size_t>(i)] : a.bytes, kScatter);
    }
    s.wait_group();
    return;
  }
  case ActionType::ReduceScatter: {
    // SimGrid's default for regular counts: reduce to 0, then scatterv from 0
    std::uint64_t total = std::accumulate(a.recv_counts.begin(), a.recv_counts.end(), std::uint64_t{0});
    reduce_linear(s, 0, total);
    if (rank != 0) {
      s.irecv(0, a.recv_counts[static_cast<std::size_t>(rank)], kScatter);
    } else {
      for (int i = 1; i < size; ++i)
        s.isend(i, a.recv_counts[static_cast<std::size_t>(i)], kScatter);
    }
    s.wait_group();
    s.compute(a.value);
    return;
  }
  default:
    return;
  }
}

} // namespace perfcast
