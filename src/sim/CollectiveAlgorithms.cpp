// The collective algorithms' point-to-point steps (declared in
// CollectiveSchedule.hpp), as SimGrid 3.32 and Open MPI define them.
#include "sim/CollectiveSchedule.hpp"

namespace perfcast::collective {

namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }
int pof2_below(int n)
{
  int p = 1;
  while (p * 2 <= n)
    p *= 2;
  return p;
}

// ---- allreduce helpers: fold the ranks beyond a power of two in and out
struct Fold {
  int pof2;
  int newrank; // -1 when the rank sits out
};

Fold fold_in(Schedule& s, std::uint64_t bytes, Tag tag)
{
  int P = s.size(), r = s.rank(), pof2 = pof2_below(P), rem = P - pof2;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      s.send(r + 1, bytes, tag);
      return {pof2, -1};
    }
    s.recv(r - 1, bytes, tag);
    return {pof2, r / 2};
  }
  return {pof2, r - rem};
}

int real_rank(int newrank, int rem) { return newrank < rem ? newrank * 2 + 1 : newrank + rem; }

void fold_out(Schedule& s, std::uint64_t bytes, Tag tag)
{
  int P = s.size(), r = s.rank(), rem = P - pof2_below(P);
  if (r < 2 * rem) {
    if (r % 2 == 0)
      s.recv(r + 1, bytes, tag);
    else
      s.send(r - 1, bytes, tag);
  }
}

} // namespace

// ---- barrier
void barrier_linear(Schedule& s)
{
  if (s.rank() > 0) {
    s.send(0, 0, kBarrier);
    s.recv(0, 0, kBarrier);
    return;
  }
  for (int i = 1; i < s.size(); ++i)
    s.irecv(i, 0, kBarrier);
  s.wait_group();
  for (int i = 1; i < s.size(); ++i)
    s.isend(i, 0, kBarrier);
  s.wait_group();
}

void barrier_dissemination(Schedule& s)
{
  for (int k = 1; k < s.size(); k *= 2)
    s.exchange_two(mod(s.rank() + k, s.size()), mod(s.rank() - k, s.size()), 0, kBarrier);
}

// ---- bcast
void bcast_binomial(Schedule& s, int root, std::uint64_t bytes)
{
  int P = s.size(), rel = mod(s.rank() - root, P);
  int mask = 1;
  while (mask < P) {
    if (rel & mask) {
      s.recv(mod(s.rank() - mask, P), bytes, kBcast);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (rel + mask < P)
      s.send(mod(s.rank() + mask, P), bytes, kBcast);
    mask >>= 1;
  }
}

void bcast_linear(Schedule& s, int root, std::uint64_t bytes)
{
  if (s.rank() != root) {
    s.recv(root, bytes, kBcast);
    return;
  }
  for (int i = 0; i < s.size(); ++i)
    if (i != root)
      s.isend(i, bytes, kBcast);
  s.wait_group();
}

// ---- reduce
void reduce_linear(Schedule& s, int root, std::uint64_t bytes)
{
  if (s.rank() != root) {
    s.isend(root, bytes, kReduce);
  } else {
    for (int i = 0; i < s.size(); ++i)
      if (i != root)
        s.irecv(i, bytes, kReduce);
  }
  s.wait_group();
}

void reduce_binomial(Schedule& s, int root, std::uint64_t bytes)
{
  int P = s.size(), rel = mod(s.rank() - root, P);
  for (int mask = 1; mask < P; mask <<= 1) {
    if (rel & mask) {
      s.send(mod(s.rank() - mask, P), bytes, kReduce);
      return;
    }
    if (rel + mask < P)
      s.recv(mod(s.rank() + mask, P), bytes, kReduce);
  }
}

void allreduce_recursive_doubling(Schedule& s, std::uint64_t bytes)
{
  int rem = s.size() - pof2_below(s.size());
  Fold f = fold_in(s, bytes, kAllreduce);
  if (f.newrank >= 0)
    for (int mask = 1; mask < f.pof2; mask <<= 1)
      s.exchange(real_rank(f.newrank ^ mask, rem), bytes, bytes, kAllreduce);
  fold_out(s, bytes, kAllreduce);
}

void allreduce_rabenseifner(Schedule& s, std::uint64_t bytes)
{
  int rem = s.size() - pof2_below(s.size());
  Fold f = fold_in(s, bytes, kAllreduce);
  if (f.newrank >= 0) {
    // reduce-scatter by recursive halving, then allgather by recursive doubling
    std::uint64_t chunk = bytes;
    std::vector<std::uint64_t> sizes;
    for (int mask = f.pof2 / 2; mask > 0; mask >>= 1) {
      chunk /= 2;
      sizes.push_back(chunk);
      s.exchange(real_rank(f.newrank ^ mask, rem), chunk, chunk, kAllreduce);
    }
    std::size_t k = sizes.size();
    for (int mask = 1; mask < f.pof2; mask <<= 1) {
      std::uint64_t c = sizes[--k];
      s.exchange(real_rank(f.newrank ^ mask, rem), c, c, kAllreduce);
    }
  }
  fold_out(s, bytes, kAllreduce);
}

void ring_pass(Schedule& s, std::uint64_t chunk, Tag tag)
{
  int P = s.size(), r = s.rank();
  for (int step = 0; step < P - 1; ++step) {
    s.isend(mod(r + 1, P), chunk, tag);
    s.irecv(mod(r - 1, P), chunk, tag);
    s.wait_group();
  }
}

void allreduce_ring(Schedule& s, std::uint64_t bytes)
{
  std::uint64_t chunk = (bytes + static_cast<std::uint64_t>(s.size()) - 1) / static_cast<std::uint64_t>(s.size());
  ring_pass(s, chunk, kAllreduce); // reduce-scatter
  ring_pass(s, chunk, kAllreduce); // allgather
}

// ---- all-to-all and gathers
void all_pairs_linear(Schedule& s, const std::vector<std::uint64_t>& send, const std::vector<std::uint64_t>& recv,
                      Tag tag, bool recv_first)
{
  int P = s.size(), r = s.rank();
  auto post_recvs = [&] {
    for (int i = 0; i < P; ++i)
      if (i != r)
        s.irecv(i, recv[static_cast<std::size_t>(i)], tag);
  };
  if (recv_first)
    post_recvs();
  for (int i = 0; i < P; ++i) {
    if (i == r)
      continue;
    s.isend(i, send[static_cast<std::size_t>(i)], tag);
    if (!recv_first)
      s.irecv(i, recv[static_cast<std::size_t>(i)], tag);
  }
  s.wait_group();
}

void alltoall_basic_linear(Schedule& s, std::uint64_t send_bytes, std::uint64_t recv_bytes)
{
  // Open MPI's basic linear: receives posted from rank+1 upwards, sends from rank-1 downwards
  int P = s.size(), r = s.rank();
  for (int i = 1; i < P; ++i)
    s.irecv(mod(r + i, P), recv_bytes, kAlltoall);
  for (int i = 1; i < P; ++i)
    s.isend(mod(r - i, P), send_bytes, kAlltoall);
  s.wait_group();
}

void alltoall_pairwise(Schedule& s, std::uint64_t send_bytes, std::uint64_t recv_bytes)
{
  int P = s.size(), r = s.rank();
  for (int step = 1; step < P; ++step) {
    s.isend(mod(r + step, P), send_bytes, kAlltoall);
    s.irecv(mod(r - step, P), recv_bytes, kAlltoall);
    s.wait_group();
  }
}

void alltoall_bruck(Schedule& s, std::uint64_t send_bytes)
{
  // log2(P) rounds; in round k each rank forwards the blocks whose index has bit k set
  int P = s.size(), r = s.rank();
  for (int k = 1; k < P; k <<= 1) {
    std::uint64_t blocks = 0;
    for (int i = 0; i < P; ++i)
      if (i & k)
        ++blocks;
    s.isend(mod(r + k, P), blocks * send_bytes, kAlltoall);
    s.irecv(mod(r - k, P), blocks * send_bytes, kAlltoall);
    s.wait_group();
  }
}

// Open MPI's fixed decision rules for alltoall, as SimGrid 3.32 applies them.
std::string alltoall_ompi_choice(int P, std::uint64_t block)
{
  auto pick = [&](std::initializer_list<std::pair<std::uint64_t, int>> rules, int last) {
    for (const auto& [limit, alg] : rules)
      if (block < limit)
        return alg;
    return last;
  };
  int alg;
  if (P == 2)
    alg = pick({{2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}}, 2);
  else if (P < 8)
    alg = pick({{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}}, 1);
  else if (P < 16)
    alg = pick({{262144, 4}}, 1);
  else if (P < 32)
    alg = pick({{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}}, 4);
  else if (P < 64)
    alg = pick({{512, 3}, {524288, 1}}, 4);
  else if (P < 128)
    alg = pick({{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}}, 2);
  else if (P < 256)
    alg = pick({{1024, 3}, {2048, 4}, {262144, 1}}, 2);
  else if (P < 512)
    alg = pick({{1024, 3}, {8192, 4}, {32768, 1}}, 2);
  else if (P < 1024)
    alg = pick({{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}}, 2);
  else if (P < 2048)
    alg = pick({{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}}, 4);
  else if (P < 4096)
    alg = pick({{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}}, 1);
  else
    alg = pick({{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}}, 4);
  // SimGrid maps linear_sync and two_proc to basic linear
  return alg == 2 ? "pairwise" : alg == 3 ? "bruck" : "linear";
}

} // namespace perfcast::collective
