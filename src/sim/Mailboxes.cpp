// Matching in posting order through per-pair and per-receiver request chains.
#include "sim/Mailboxes.hpp"

namespace perfcast::replay {

namespace {

template <class Next, class Accept>
std::uint32_t first_accepted(std::uint32_t id, ChunkedPool<Request>& requests, Next next, Accept accept)
{
  for (; id != kNone; id = next(requests[id]))
    if (accept(requests[id]))
      return id;
  return kNone;
}

std::uint32_t next_in_list(const Request& q) { return q.next; }
std::uint32_t next_in_box(const Request& q) { return q.box_next; }

} // namespace

// ---- pairs: in the box, else in the table

Mailboxes::Pair* Mailboxes::find(Box& box, std::int32_t dst, std::int32_t src)
{
  for (int i = 0; i < kInlinePairs; ++i)
    if (box.src[i] == src)
      return &box.pairs[i];
  return box.in_table ? table_find(pair_key(dst, src)) : nullptr;
}

Mailboxes::Pair& Mailboxes::find_or_add(Box& box, std::int32_t dst, std::int32_t src)
{
  if (Pair* p = find(box, dst, src))
    return *p;
  for (int i = 0; i < kInlinePairs; ++i)
    if (box.src[i] < 0) {
      box.src[i] = src;
      box.pairs[i] = Pair{};
      return box.pairs[i];
    }
  ++box.in_table;
  return table_add(pair_key(dst, src));
}

void Mailboxes::drop_if_empty(Box& box, std::int32_t dst, std::int32_t src, Pair& pair)
{
  if (!pair.empty())
    return;
  if (&pair >= box.pairs && &pair < box.pairs + kInlinePairs) {
    box.src[&pair - box.pairs] = -1;
    return;
  }
  --box.in_table;
  table_erase(pair_key(dst, src));
}

Mailboxes::Pair* Mailboxes::table_find(std::uint64_t key)
{
  if (slots_.empty())
    return nullptr;
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(key);; i = (i + 1) & mask) {
    if (slots_[i].key == key)
      return &slots_[i].pair;
    if (slots_[i].key == kEmpty)
      return nullptr;
  }
}

Mailboxes::Pair& Mailboxes::table_add(std::uint64_t key)
{
  if (2 * (used_ + 1) > slots_.size())
    grow();
  std::size_t mask = slots_.size() - 1;
  std::size_t i = home(key);
  while (slots_[i].key != kEmpty)
    i = (i + 1) & mask;
  slots_[i].key = key;
  slots_[i].pair = Pair{};
  ++used_;
  return slots_[i].pair;
}

// Backward-shift deletion: later entries of the probe run move into the hole,
// so lookups never need tombstones.
void Mailboxes::table_erase(std::uint64_t key)
{
  std::size_t mask = slots_.size() - 1;
  std::size_t i = home(key);
  while (slots_[i].key != key)
    i = (i + 1) & mask;
  for (std::size_t j = (i + 1) & mask; slots_[j].key != kEmpty; j = (j + 1) & mask) {
    std::size_t h = home(slots_[j].key);
    // the entry at j may fill the hole at i when its home is not in (i, j]
    if (((j - h) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i].key = kEmpty;
  --used_;
}

void Mailboxes::grow()
{
  std::vector<Slot> old;
  old.swap(slots_);
  std::size_t size = old.empty() ? 1024 : 2 * old.size();
  slots_.assign(size, Slot{});
  shift_ = 64 - std::countr_zero(size);
  std::size_t mask = size - 1;
  for (const Slot& s : old) {
    if (s.key == kEmpty)
      continue;
    std::size_t i = home(s.key);
    while (slots_[i].key != kEmpty)
      i = (i + 1) & mask;
    slots_[i] = s;
  }
}

// ---- request chains

void Mailboxes::unlink(List& list, std::uint32_t id, ChunkedPool<Request>& requests)
{
  Request& q = requests[id];
  (q.prev == kNone ? list.head : requests[q.prev].next) = q.next;
  (q.next == kNone ? list.tail : requests[q.next].prev) = q.prev;
  q.prev = q.next = kNone;
}

void Mailboxes::unlink_box(List& list, std::uint32_t id, ChunkedPool<Request>& requests)
{
  Request& q = requests[id];
  (q.box_prev == kNone ? list.head : requests[q.box_prev].box_next) = q.box_next;
  (q.box_next == kNone ? list.tail : requests[q.box_next].box_prev) = q.box_prev;
  q.box_prev = q.box_next = kNone;
}

void Mailboxes::add(std::uint32_t id, ChunkedPool<Request>& requests)
{
  Request& q = requests[id];
  Box& box = boxes_[static_cast<std::size_t>(q.dst)];
  List* list;
  if (q.is_send)
    list = &find_or_add(box, q.dst, q.src).sends;
  else if (q.wildcard_source)
    list = &box.any_recvs;
  else
    list = &find_or_add(box, q.dst, q.src).recvs;
  q.prev = list->tail;
  q.next = kNone;
  (list->tail == kNone ? list->head : requests[list->tail].next) = id;
  list->tail = id;
  if (!q.is_send) {
    q.posted = posted_++;
    return;
  }
  q.box_prev = box.sends.tail;
  q.box_next = kNone;
  (box.sends.tail == kNone ? box.sends.head : requests[box.sends.tail].box_next) = id;
  box.sends.tail = id;
  ++unmatched_sends_;
}

std::uint32_t Mailboxes::take_send(const Request& recv, ChunkedPool<Request>& requests)
{
  Box& box = boxes_[static_cast<std::size_t>(recv.dst)];
  auto accepts = [&](const Request& send) { return matches(recv, send); };
  std::uint32_t id;
  Pair* pair;
  if (recv.src == kAnySource) {
    id = first_accepted(box.sends.head, requests, next_in_box, accepts);
    if (id == kNone)
      return kNone;
    pair = find(box, recv.dst, requests[id].src);
  } else {
    pair = find(box, recv.dst, recv.src);
    if (!pair)
      return kNone;
    id = first_accepted(pair->sends.head, requests, next_in_list, accepts);
    if (id == kNone)
      return kNone;
  }
  std::int32_t src = requests[id].src;
  unlink(pair->sends, id, requests);
  drop_if_empty(box, recv.dst, src, *pair);
  unlink_box(box.sends, id, requests);
  --unmatched_sends_;
  return id;
}

std::uint32_t Mailboxes::take_recv(const Request& send, ChunkedPool<Request>& requests)
{
  Box& box = boxes_[static_cast<std::size_t>(send.dst)];
  auto accepts = [&](const Request& recv) { return matches(recv, send); };
  Pair* pair = find(box, send.dst, send.src);
  std::uint32_t named = pair ? first_accepted(pair->recvs.head, requests, next_in_list, accepts) : kNone;
  std::uint32_t any = first_accepted(box.any_recvs.head, requests, next_in_list, accepts);
  if (any != kNone && (named == kNone || requests[any].posted < requests[named].posted)) {
    unlink(box.any_recvs, any, requests);
    return any;
  }
  if (named == kNone)
    return kNone;
  unlink(pair->recvs, named, requests);
  drop_if_empty(box, send.dst, send.src, *pair);
  return named;
}

bool Mailboxes::remove(std::uint32_t id, ChunkedPool<Request>& requests)
{
  Request& q = requests[id];
  Box& box = boxes_[static_cast<std::size_t>(q.dst)];
  bool any = !q.is_send && q.wildcard_source;
  Pair* pair = any ? nullptr : find(box, q.dst, q.src);
  if (!any && !pair)
    return false;
  List& list = any ? box.any_recvs : q.is_send ? pair->sends : pair->recvs;
  std::uint32_t at = list.head;
  while (at != kNone && at != id)
    at = requests[at].next;
  if (at == kNone)
    return false;
  unlink(list, id, requests);
  if (q.is_send) {
    unlink_box(box.sends, id, requests);
    --unmatched_sends_;
  }
  if (pair)
    drop_if_empty(box, q.dst, q.src, *pair);
  return true;
}

} // namespace perfcast::replay
