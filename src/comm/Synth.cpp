#include "comm/Synth.hpp"

#include "comm/CommEstimate.hpp"
#include "core/Error.hpp"
#include "trace/TraceWriter.hpp"

#include <cmath>
#include <fmt/format.h>

namespace perfcast::comm {

namespace {

// Share k of `total` split into `parts` nearly equal integers (the first
// total % parts shares one larger), so the calls add up to the total exactly.
std::uint64_t share(std::uint64_t total, std::uint64_t parts, std::uint64_t k)
{
  return total / parts + (k < total % parts ? 1 : 0);
}

} // namespace

void write_synthetic_trace(const ValueGraph& graph, const SynthOptions& o)
{
  if (o.procs < 1)
    throw Error(fmt::format("--procs {}: expected at least 1 process", o.procs));
  if (!(o.flops_per_value > 0) || !std::isfinite(o.flops_per_value))
    throw Error(fmt::format("--flops-per-value {}: expected a positive number", o.flops_per_value));
  Singletons singletons = detect_singletons(graph);
  ValuePartition partition = partition_values(graph, singletons, o.procs);
  CommEstimate est = estimate_communication(graph, singletons, partition);
  std::uint64_t calls = std::max<std::uint64_t>(est.iterations, 1);
  int p = o.procs;
  // values each process computes over the run; a singleton's values are
  // shared out evenly (each process computes its part of a norm)
  std::vector<double> work(static_cast<std::size_t>(p), 0.0);
  std::uint64_t broadcast_bytes = 0, allreduce_bytes = 0, reduce_bytes = 0;
  for (std::size_t v = 0; v < graph.vertices.size(); ++v) {
    double w = static_cast<double>(graph.vertices[v].work);
    if (partition.owner[v] >= 0) {
      work[partition.owner[v]] += w;
      continue;
    }
    for (double& x : work)
      x += w / p;
    std::uint64_t bytes = graph.vertices[v].bytes;
    switch (singletons.kind[v]) {
    case SingletonKind::Broadcast: broadcast_bytes += bytes; break;
    case SingletonKind::Allreduce: allreduce_bytes += bytes; break;
    case SingletonKind::Reduce: reduce_bytes += bytes; break;
    case SingletonKind::None: break;
    }
  }
  TraceWriter writer(o.output, p);
  auto action = [](ActionType type, int rank) {
    Action a;
    a.type = type;
    a.rank = rank;
    return a;
  };
  for (int r = 0; r < p; ++r)
    writer.write(action(ActionType::Init, r));
  // a broadcast of the parameters read in the region, once before it
  if (broadcast_bytes > 0 && p > 1)
    for (int r = 0; r < p; ++r) {
      Action a = action(ActionType::Bcast, r);
      a.bytes = broadcast_bytes;
      writer.write(a);
    }
  for (std::uint64_t call = 0; call < calls; ++call)
    for (int r = 0; r < p; ++r) {
      int requests = 0;
      // one request of `type` to each partner q whose matrix entry bytes_of(q) has a share in this call
      auto post = [&](ActionType type, auto bytes_of) {
        for (int q = 0; q < p; ++q)
          if (std::uint64_t bytes = share(bytes_of(q), calls, call); bytes > 0) {
            Action a = action(type, r);
            a.partner = q;
            a.bytes = bytes;
            writer.write(a);
            ++requests;
          }
      };
      post(ActionType::Irecv, [&](int q) { return est.matrix[q][r]; });
      post(ActionType::Isend, [&](int q) { return est.matrix[r][q]; });
      if (requests > 0)
        writer.write(action(ActionType::Waitall, r));
      Action c = action(ActionType::Compute, r);
      c.value = work[r] / static_cast<double>(calls) * o.flops_per_value;
      writer.write(c);
      if (allreduce_bytes > 0 && p > 1) {
        Action a = action(ActionType::Allreduce, r);
        a.bytes = allreduce_bytes;
        writer.write(a);
      }
      if (reduce_bytes > 0 && p > 1) {
        Action a = action(ActionType::Reduce, r);
        a.bytes = reduce_bytes;
        writer.write(a);
      }
    }
  for (int r = 0; r < p; ++r)
    writer.write(action(ActionType::Finalize, r));
  writer.close();
}

} // namespace perfcast::comm
