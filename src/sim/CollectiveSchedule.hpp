#pragma once
// The point-to-point steps of one rank's collective (internal to src/sim):
// `Schedule` appends micro-operations, and each algorithm function writes one
// collective algorithm's steps into it. `expand_collective` (Collectives.cpp)
// picks the algorithm; the algorithms are in CollectiveAlgorithms.cpp.
#include "sim/MicroOp.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace perfcast::collective {

enum Tag : std::int32_t {
  kBarrier = 1,
  kBcast,
  kReduce,
  kAllreduce,
  kAllgather,
  kGather,
  kScatter,
  kAlltoall,
  kScan,
};

// Builds one rank's schedule.
class Schedule {
public:
  Schedule(int rank, int size, std::vector<MicroOp>& out) : rank_(rank), size_(size), out_(out) {}

  void send(int to, std::uint64_t bytes, Tag tag) { push(OpCode::Send, to, bytes, tag, false); }
  void recv(int from, std::uint64_t bytes, Tag tag) { push(OpCode::Recv, from, bytes, tag, false); }
  void isend(int to, std::uint64_t bytes, Tag tag) { push(OpCode::Isend, to, bytes, tag, true); }
  void irecv(int from, std::uint64_t bytes, Tag tag) { push(OpCode::Irecv, from, bytes, tag, true); }
  void wait_group()
  {
    MicroOp op;
    op.code = OpCode::WaitGroup;
    out_.push_back(op);
  }
  void compute(double flops)
  {
    if (flops == 0)
      return;
    MicroOp op;
    op.code = OpCode::Compute;
    op.value = flops;
    out_.push_back(op);
  }
  void exchange_two(int to, int from, std::uint64_t bytes, Tag tag)
  {
    isend(to, bytes, tag);
    irecv(from, bytes, tag);
    wait_group();
  }
  void exchange(int peer, std::uint64_t send_bytes, std::uint64_t recv_bytes, Tag tag)
  {
    isend(peer, send_bytes, tag);
    irecv(peer, recv_bytes, tag);
    wait_group();
  }

  int rank() const { return rank_; }
  int size() const { return size_; }

private:
  void push(OpCode code, int peer, std::uint64_t bytes, Tag tag, bool grouped)
  {
    MicroOp op;
    op.code = code;
    op.ctx = static_cast<std::uint16_t>(Context::Collective);
    op.peer = peer;
    op.bytes = bytes;
    op.tag = tag;
    op.in_group = grouped;
    out_.push_back(op);
  }
  int rank_, size_;
  std::vector<MicroOp>& out_;
};

/// Barrier: every rank reports to rank 0, which then releases them (Open MPI's basic linear).
void barrier_linear(Schedule& s);
/// Barrier by dissemination: ceil(log2 P) rounds of exchanges at distance 2^k.
void barrier_dissemination(Schedule& s);
/// Broadcast along a binomial tree rooted at `root`.
void bcast_binomial(Schedule& s, int root, std::uint64_t bytes);
/// Broadcast by the root sending to every other rank.
void bcast_linear(Schedule& s, int root, std::uint64_t bytes);
/// Reduce by every rank sending to the root.
void reduce_linear(Schedule& s, int root, std::uint64_t bytes);
/// Reduce along a binomial tree rooted at `root`.
void reduce_binomial(Schedule& s, int root, std::uint64_t bytes);
/// Allreduce by recursive doubling, ranks beyond a power of two folded in and out.
void allreduce_recursive_doubling(Schedule& s, std::uint64_t bytes);
/// Allreduce by recursive halving (reduce-scatter) then recursive doubling (allgather).
void allreduce_rabenseifner(Schedule& s, std::uint64_t bytes);
/// P - 1 steps passing `chunk` bytes to the right neighbour of a ring.
void ring_pass(Schedule& s, std::uint64_t chunk, Tag tag);
/// Allreduce on a ring: a reduce-scatter pass and an allgather pass of bytes / P each.
void allreduce_ring(Schedule& s, std::uint64_t bytes);
/// Every pair exchanges its counts with non-blocking calls (receives first when asked).
void all_pairs_linear(Schedule& s, const std::vector<std::uint64_t>& send, const std::vector<std::uint64_t>& recv,
                      Tag tag, bool recv_first);
/// Open MPI's basic linear all-to-all.
void alltoall_basic_linear(Schedule& s, std::uint64_t send_bytes, std::uint64_t recv_bytes);
/// All-to-all in P - 1 pairwise exchange steps.
void alltoall_pairwise(Schedule& s, std::uint64_t send_bytes, std::uint64_t recv_bytes);
/// Bruck's all-to-all: log2(P) rounds forwarding the blocks whose index has bit k set.
void alltoall_bruck(Schedule& s, std::uint64_t send_bytes);
/// Open MPI's fixed decision rule for all-to-all ("linear", "pairwise" or "bruck").
std::string alltoall_ompi_choice(int P, std::uint64_t block);

} // namespace perfcast::collective
