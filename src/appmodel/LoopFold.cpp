#include "appmodel/LoopFold.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace perfcast {

namespace {

constexpr std::uint64_t kBase = 0x100000001b3ULL; // the rolling hash's multiplier (odd)

std::uint64_t mix(std::uint64_t h, std::uint64_t v)
{
  // splitmix64's finaliser over h combined with v
  std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t size_class(std::uint64_t bytes) { return bytes == 0 ? 0 : 1 + static_cast<std::uint64_t>(std::bit_width(bytes) - 1); }

std::uint64_t leaf_hash(const Action& a)
{
  std::uint64_t h = mix(0x6c656166, static_cast<std::uint64_t>(a.type));
  if (a.type == ActionType::Compute)
    return h; // a slot: its amount is a number, not structure
  h = mix(h, a.nonblocking);
  h = mix(h, static_cast<std::uint32_t>(a.partner));
  h = mix(h, static_cast<std::uint32_t>(a.partner2));
  h = mix(h, static_cast<std::uint32_t>(a.tag));
  h = mix(h, static_cast<std::uint32_t>(a.comm));
  h = mix(h, static_cast<std::uint32_t>(a.color));
  h = mix(h, static_cast<std::uint32_t>(a.key));
  h = mix(h, size_class(a.bytes));
  h = mix(h, size_class(a.recv_bytes));
  h = mix(h, a.send_counts.size());
  h = mix(h, a.recv_counts.size());
  return h;
}

std::uint64_t loop_hash(std::uint64_t iterations, std::uint64_t body_hash)
{
  return mix(mix(0x6c6f6f70, iterations), body_hash);
}

FoldSums sums_of(const Action& a, std::uint64_t pending)
{
  FoldSums s;
  s.instances = 1;
  s.value = a.value;
  s.bytes = static_cast<double>(a.bytes);
  s.recv_bytes = static_cast<double>(a.recv_bytes);
  std::size_t peers = a.send_counts.size() + a.recv_counts.size();
  if (peers > 0) {
    double sum = 0;
    for (auto c : a.send_counts)
      sum += static_cast<double>(c);
    for (auto c : a.recv_counts)
      sum += static_cast<double>(c);
    s.peer_bytes = sum / static_cast<double>(peers);
  }
  if (a.type == ActionType::Waitall || a.type == ActionType::Testall)
    s.waits_all_pending = a.bytes == pending;
  return s;
}

// adds the numbers of `from` into `into`, node by node (the two have one structure)
void absorb(FoldNode& into, const FoldNode& from)
{
  if (!into.loop) {
    into.sums.add(from.sums);
    return;
  }
  for (std::size_t i = 0; i < into.body.size(); ++i)
    absorb(into.body[i], from.body[i]);
}

// the leaves directly in a new loop's first iteration (not those of loops inside it) are its first instances
void mark_first(std::vector<FoldNode>& body)
{
  for (FoldNode& n : body)
    if (!n.loop) {
      n.sums.first = n.action.type == ActionType::Compute ? n.sums.value : 0;
      n.sums.entries = n.sums.instances;
    }
}

bool is_slot(const FoldNode& n) { return !n.loop && n.action.type == ActionType::Compute; }

// A loop begins with the slot before its first action, so a body that computes last ("exchange, compute") holds
// its computation in the next iteration's leading slot: the first iteration's stands apart (the computation before
// the loop) and the last one's falls after the loop. Where the slot after the loop is near the body's other
// instances and its first instances are far from them, the loop is turned: the first instances become a slot before it, the
// body ends with a slot of the other instances and the slot after.
void turn_loops(std::vector<FoldNode>& seq)
{
  for (FoldNode& n : seq)
    if (n.loop)
      turn_loops(n.body);
  for (std::size_t i = 0; i + 1 < seq.size(); ++i) {
    FoldNode& loop = seq[i];
    if (!loop.loop || loop.body.empty() || !is_slot(loop.body.front()) || !is_slot(seq[i + 1]))
      continue;
    const FoldSums& head = loop.body.front().sums;
    const FoldSums& next = seq[i + 1].sums;
    double others = head.instances - head.entries;
    if (head.entries <= 0 || others <= 0 || next.instances <= 0)
      continue;
    double first = head.first / head.entries, rest = (head.value - head.first) / others,
           after = next.value / next.instances;
    // a clear case only (the first iteration's slot far from the others, the slot after the loop near them), so
    // that noise in measured computation does not turn a loop at one count and not at another
    double gap = std::fabs(first - rest);
    if (!(gap > 0.5 * std::fabs(rest) && std::fabs(after - rest) < 0.25 * gap))
      continue;
    FoldNode before = loop.body.front();
    before.sums.value = head.first;
    before.sums.instances = head.entries;
    before.sums.first = before.sums.entries = 0;
    FoldNode last = loop.body.front();
    last.sums.value = head.value - head.first + next.value;
    last.sums.instances = others + next.instances;
    last.sums.first = last.sums.entries = 0;
    loop.body.erase(loop.body.begin());
    loop.body.push_back(std::move(last));
    loop.body_hash = sequence_hash(loop.body);
    seq.erase(seq.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(i), std::move(before));
    ++i;
  }
}

} // namespace

std::uint64_t pending_after(const Action& a, std::uint64_t pending)
{
  switch (a.type) {
  case ActionType::Isend:
  case ActionType::Issend:
  case ActionType::Irecv: return pending + 1;
  case ActionType::Wait:
  case ActionType::Waitany: return pending > 0 ? pending - 1 : 0;
  case ActionType::Waitall:
  case ActionType::Waitsome:
  case ActionType::Testall: return 0;
  default: return a.nonblocking ? pending + 1 : pending;
  }
}

void FoldSums::add(const FoldSums& o)
{
  instances += o.instances;
  value += o.value;
  bytes += o.bytes;
  recv_bytes += o.recv_bytes;
  peer_bytes += o.peer_bytes;
  first += o.first;
  entries += o.entries;
  waits_all_pending = waits_all_pending && o.waits_all_pending;
}

std::uint64_t sequence_hash(const std::vector<FoldNode>& nodes)
{
  std::uint64_t h = 0;
  for (const FoldNode& n : nodes)
    h = h * kBase + n.hash;
  return h;
}

std::uint64_t LoopFolder::range_hash(std::size_t from, std::size_t to) const
{
  return prefix_[to] - prefix_[from] * powers_[to - from];
}

void LoopFolder::push(FoldNode node)
{
  prefix_.push_back(prefix_.back() * kBase + node.hash);
  if (powers_.size() < prefix_.size())
    powers_.push_back(powers_.back() * kBase);
  seq_.push_back(std::move(node));
  fold();
}

void LoopFolder::fold()
{
  for (bool changed = true; changed;) {
    changed = false;
    std::size_t s = seq_.size();
    for (std::size_t L = 1; L <= kMaxBody && L <= s; ++L) {
      std::uint64_t tail = range_hash(s - L, s);
      // one iteration more of the loop just before the last L nodes
      if (s >= L + 1) {
        FoldNode& loop = seq_[s - L - 1];
        if (loop.loop && loop.body.size() == L && loop.body_hash == tail) {
          FoldNode iteration;
          iteration.loop = true;
          iteration.body.assign(std::make_move_iterator(seq_.begin() + static_cast<std::ptrdiff_t>(s - L)),
                                std::make_move_iterator(seq_.end()));
          absorb(loop, iteration);
          ++loop.iterations;
          loop.hash = loop_hash(loop.iterations, loop.body_hash);
          seq_.resize(s - L);
          prefix_.resize(s - L + 1);
          prefix_[s - L] = prefix_[s - L - 1] * kBase + loop.hash;
          changed = true;
          break;
        }
      }
      // the last L nodes repeat the L before them: a loop of two iterations
      if (s >= 2 * L && range_hash(s - 2 * L, s - L) == tail) {
        FoldNode loop;
        loop.loop = true;
        loop.iterations = 2;
        loop.body_hash = tail;
        loop.body.assign(std::make_move_iterator(seq_.begin() + static_cast<std::ptrdiff_t>(s - 2 * L)),
                         std::make_move_iterator(seq_.begin() + static_cast<std::ptrdiff_t>(s - L)));
        mark_first(loop.body);
        FoldNode second;
        second.loop = true;
        second.body.assign(std::make_move_iterator(seq_.begin() + static_cast<std::ptrdiff_t>(s - L)),
                           std::make_move_iterator(seq_.end()));
        absorb(loop, second);
        loop.hash = loop_hash(2, loop.body_hash);
        seq_.resize(s - 2 * L);
        prefix_.resize(s - 2 * L + 1);
        prefix_.push_back(prefix_.back() * kBase + loop.hash);
        seq_.push_back(std::move(loop));
        changed = true;
        break;
      }
    }
  }
}

FoldNode LoopFolder::empty_slot(const Action& before)
{
  FoldNode slot;
  slot.action.type = ActionType::Compute;
  slot.action.rank = before.rank;
  slot.action.line = before.line;
  slot.sums.instances = 1;
  slot.hash = leaf_hash(slot.action);
  return slot;
}

void LoopFolder::add(const Action& a)
{
  if (!started_) {
    slot_ = empty_slot(a);
    started_ = true;
  }
  if (a.type == ActionType::Compute) {
    slot_.sums.value += a.value;
    return;
  }
  push(std::move(slot_)); // the slot before this action is complete
  FoldNode leaf;
  leaf.action = a;
  leaf.sums = sums_of(a, pending_);
  leaf.hash = leaf_hash(a);
  pending_ = pending_after(a, pending_);
  push(std::move(leaf));
  slot_ = empty_slot(a);
}

namespace {

// one iteration's share of a folded node: its sums over `iterations` instances divided evenly
void scale(FoldNode& n, double factor)
{
  if (n.loop) {
    for (FoldNode& c : n.body)
      scale(c, factor);
    return;
  }
  FoldSums& s = n.sums;
  s.instances *= factor, s.value *= factor, s.bytes *= factor, s.recv_bytes *= factor, s.peer_bytes *= factor,
      s.first *= factor, s.entries *= factor;
}

// whether a body holds point-to-point traffic or the completion of its requests: only partners (and the waits of
// exchanges that a small grid leaves empty) can coincide
bool has_partner(const std::vector<FoldNode>& body)
{
  for (const FoldNode& n : body)
    if (n.loop ? has_partner(n.body) : is_point_to_point(n.action.type) || is_request_completion(n.action.type))
      return true;
  return false;
}

void unroll_short_loops(std::vector<FoldNode>& seq)
{
  std::vector<FoldNode> out;
  for (FoldNode& n : seq) {
    if (!n.loop) {
      out.push_back(std::move(n));
      continue;
    }
    unroll_short_loops(n.body);
    if (n.iterations <= LoopFolder::kUnrollIterations && n.iterations * n.body.size() <= LoopFolder::kUnrollNodes &&
        has_partner(n.body)) {
      for (FoldNode& c : n.body)
        scale(c, 1.0 / static_cast<double>(n.iterations));
      for (std::uint64_t k = 0; k < n.iterations; ++k)
        for (const FoldNode& c : n.body)
          out.push_back(c);
      continue;
    }
    n.body_hash = sequence_hash(n.body);
    out.push_back(std::move(n));
  }
  seq = std::move(out);
}

} // namespace

std::vector<FoldNode> LoopFolder::finish()
{
  if (started_)
    push(std::move(slot_));
  std::vector<FoldNode> out = std::move(seq_);
  turn_loops(out);
  unroll_short_loops(out);
  *this = LoopFolder{};
  return out;
}

} // namespace perfcast
