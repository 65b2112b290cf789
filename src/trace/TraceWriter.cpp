#include "trace/TraceWriter.hpp"

#include "core/AtomicFile.hpp"
#include "core/Error.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

namespace perfcast {

namespace {

std::string counts(const std::vector<std::uint64_t>& v)
{
  std::string s;
  for (auto c : v)
    s += fmt::format(" {}", c);
  return s;
}

std::string partner(std::int32_t p)
{
  return p == kAnySource ? "-1" : p == kLastSource ? "@" : std::to_string(p);
}

std::string rank_file(const std::string& dir, int r) { return fmt::format("{}/rank-{}.txt", dir, r); }

} // namespace

// the line without its communicator suffix
static std::string format_action_body(const Action& a);

std::string format_action(const Action& a)
{
  std::string line = format_action_body(a);
  if (a.comm != 0)
    line += fmt::format(" comm={}", a.comm);
  return line;
}

static std::string format_action_body(const Action& a)
{
  std::string head = fmt::format("{} {}", a.rank, action_keyword(a));
  std::uint64_t sum_send = 0, sum_recv = 0;
  for (auto c : a.send_counts)
    sum_send += c;
  for (auto c : a.recv_counts)
    sum_recv += c;
  switch (a.type) {
  case ActionType::Compute:
  case ActionType::Sleep:
    return fmt::format("{} {:.6g}", head, a.value);
  case ActionType::Migrate:
    return fmt::format("{} {}", head, a.bytes);
  case ActionType::LoopBegin:
    return fmt::format("{} {}", head, a.tag);
  case ActionType::CommSplit:
    return a.tag > 0 ? fmt::format("{} {} {} {}", head, a.tag, a.color, a.key) : head;
  case ActionType::CommDup:
    return a.tag > 0 ? fmt::format("{} {}", head, a.tag) : head;
  case ActionType::Send:
  case ActionType::Isend:
  case ActionType::Ssend:
  case ActionType::Issend:
  case ActionType::Recv:
  case ActionType::Irecv:
    return fmt::format("{} {} {} {} 6", head, partner(a.partner), a.tag, a.bytes);
  case ActionType::Wait:
  case ActionType::Test:
  case ActionType::Cancel:
    return fmt::format("{} {} {} {}", head, partner(a.partner), partner(a.partner2), a.tag);
  case ActionType::Waitall:
  case ActionType::Testall:
  case ActionType::Waitany:
  case ActionType::Waitsome:
    return a.bytes ? fmt::format("{} {}", head, a.bytes) : head;
  case ActionType::SendRecv:
    return fmt::format("{} {} {} {} {} 6 6", head, a.bytes, a.partner, a.recv_bytes, partner(a.partner2));
  case ActionType::Bcast:
    return fmt::format("{} {} {} 6", head, a.bytes, a.partner);
  case ActionType::Reduce:
    return fmt::format("{} {} {:.6g} {} 6", head, a.bytes, a.value, a.partner);
  case ActionType::Allreduce:
  case ActionType::Scan:
  case ActionType::Exscan:
    return fmt::format("{} {} {:.6g} 6", head, a.bytes, a.value);
  case ActionType::Alltoall:
  case ActionType::Allgather:
    return fmt::format("{} {} {} 6 6", head, a.bytes, a.recv_bytes);
  case ActionType::Gather:
  case ActionType::Scatter:
    return fmt::format("{} {} {} {} 6 6", head, a.bytes, a.recv_bytes, a.partner);
  case ActionType::Gatherv:
    return fmt::format("{} {}{} {} 6 6", head, a.bytes, counts(a.recv_counts), a.partner);
  case ActionType::Allgatherv:
    return fmt::format("{} {}{} 6 6", head, a.bytes, counts(a.recv_counts));
  case ActionType::Scatterv:
    return fmt::format("{}{} {} {} 6 6", head, counts(a.send_counts), a.recv_bytes, a.partner);
  case ActionType::Alltoallv:
    return fmt::format("{} {}{} {}{} 6 6", head, sum_send, counts(a.send_counts), sum_recv, counts(a.recv_counts));
  case ActionType::ReduceScatter:
    return fmt::format("{}{} {:.6g} 6", head, counts(a.recv_counts), a.value);
  default:
    return head;
  }
}

TraceWriter::TraceWriter(std::string dir, int ranks, std::string index_name)
    : dir_(std::move(dir)), index_name_(std::move(index_name))
{
  // what the directory may already hold is the caller's rule; here only that
  // its parent exists and that a directory made for this trace goes with it
  directory_ = std::make_unique<OutputDirectory>(dir_, "trace", true,
                                                 [](const std::filesystem::directory_entry&) { return true; });
  for (int r = 0; r < ranks; ++r) {
    std::string tmp = rank_file(dir_, r) + ".partial";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f)
      fail_in(tmp, std::string("cannot create trace file: ") + std::strerror(errno));
    files_.push_back(f);
  }
}

TraceWriter::~TraceWriter()
{
  if (!closed_)
    for (std::size_t r = 0; r < files_.size(); ++r) {
      std::fclose(files_[r]);
      std::remove((rank_file(dir_, static_cast<int>(r)) + ".partial").c_str());
    }
}

void TraceWriter::write(const Action& action)
{
  if (action.rank < 0 || static_cast<std::size_t>(action.rank) >= files_.size())
    throw Error(fmt::format("trace writer: rank {} is outside 0..{}", action.rank, files_.size() - 1));
  std::string line = format_action(action);
  line += '\n';
  std::FILE* f = files_[static_cast<std::size_t>(action.rank)];
  if (std::fwrite(line.data(), 1, line.size(), f) != line.size())
    fail_in(rank_file(dir_, action.rank), std::string("write failed: ") + std::strerror(errno));
}

void TraceWriter::close()
{
  if (closed_)
    return;
  closed_ = true;
  std::string index;
  for (std::size_t r = 0; r < files_.size(); ++r) {
    std::string final_name = rank_file(dir_, static_cast<int>(r));
    bool ok = std::fflush(files_[r]) == 0;
    ok = std::fclose(files_[r]) == 0 && ok;
    if (!ok || std::rename((final_name + ".partial").c_str(), final_name.c_str()) != 0)
      fail_in(final_name, std::string("cannot finish trace file: ") + std::strerror(errno));
    index += fmt::format("rank-{}.txt\n", r);
  }
  write_file_atomically(index_path(), index);
  directory_->keep();
}

} // namespace perfcast
