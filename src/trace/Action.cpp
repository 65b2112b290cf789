#include "trace/Action.hpp"

#include <array>

namespace perfcast {

std::string_view action_name(ActionType type)
{
  switch (type) {
  case ActionType::Init: return "init";
  case ActionType::Finalize: return "finalize";
  case ActionType::Compute: return "compute";
  case ActionType::Sleep: return "sleep";
  case ActionType::Send: return "send";
  case ActionType::Isend: return "isend";
  case ActionType::Ssend: return "ssend";
  case ActionType::Issend: return "issend";
  case ActionType::Recv: return "recv";
  case ActionType::Irecv: return "irecv";
  case ActionType::Wait: return "wait";
  case ActionType::Test: return "test";
  case ActionType::Waitall: return "waitall";
  case ActionType::Testall: return "testall";
  case ActionType::Waitany: return "waitany";
  case ActionType::Waitsome: return "waitsome";
  case ActionType::SendRecv: return "sendRecv";
  case ActionType::Barrier: return "barrier";
  case ActionType::Bcast: return "bcast";
  case ActionType::Reduce: return "reduce";
  case ActionType::Allreduce: return "allreduce";
  case ActionType::Scan: return "scan";
  case ActionType::Exscan: return "exscan";
  case ActionType::Alltoall: return "alltoall";
  case ActionType::Alltoallv: return "alltoallv";
  case ActionType::Allgather: return "allgather";
  case ActionType::Allgatherv: return "allgatherv";
  case ActionType::Gather: return "gather";
  case ActionType::Gatherv: return "gatherv";
  case ActionType::Scatter: return "scatter";
  case ActionType::Scatterv: return "scatterv";
  case ActionType::ReduceScatter: return "reducescatter";
  case ActionType::CommSize: return "comm_size";
  case ActionType::CommSplit: return "comm_split";
  case ActionType::CommDup: return "comm_dup";
  case ActionType::Location: return "location";
  case ActionType::Migrate: return "migrate";
  case ActionType::IterationIn: return "iteration_in";
  case ActionType::IterationOut: return "iteration_out";
  case ActionType::LoopBegin: return "loop_begin";
  case ActionType::LoopEnd: return "loop_end";
  case ActionType::Cancel: return "cancel";
  }
  return "?";
}

std::string action_keyword(const Action& action)
{
  std::string name(action_name(action.type));
  return action.nonblocking ? "i" + name : name;
}

bool is_point_to_point(ActionType t)
{
  switch (t) {
  case ActionType::Send:
  case ActionType::Isend:
  case ActionType::Ssend:
  case ActionType::Issend:
  case ActionType::Recv:
  case ActionType::Irecv:
  case ActionType::SendRecv: return true;
  default: return false;
  }
}

bool is_request_completion(ActionType t)
{
  switch (t) {
  case ActionType::Wait:
  case ActionType::Test:
  case ActionType::Waitall:
  case ActionType::Testall:
  case ActionType::Waitany:
  case ActionType::Waitsome: return true;
  default: return false;
  }
}

bool is_collective(ActionType t)
{
  switch (t) {
  case ActionType::Barrier:
  case ActionType::Bcast:
  case ActionType::Reduce:
  case ActionType::Allreduce:
  case ActionType::Scan:
  case ActionType::Exscan:
  case ActionType::Alltoall:
  case ActionType::Alltoallv:
  case ActionType::Allgather:
  case ActionType::Allgatherv:
  case ActionType::Gather:
  case ActionType::Gatherv:
  case ActionType::Scatter:
  case ActionType::Scatterv:
  case ActionType::ReduceScatter:
    return true;
  default:
    return false;
  }
}

int datatype_size(int id)
{
  // SimGrid 3.32's predefined datatype ids (smpi_datatype.cpp), in order.
  static constexpr std::array<int, 55> sizes = {
      8,  4, 1, 2,  8,  4,  1, 8, 1, 1, 2, 4, 8, 8, 16, 4, 1, 1, 2,  4,  8,  1,  2,  4, 8, 8, 16, 32,
      8,  8, 8, 16, 16, 8,  8, 8, 16, 16, 4, 4, 8, 16, 8, 16, 16, 4, 2, 4, 8, 16, 32, 1, 8, 16, 32};
  if (id < 0 || id >= static_cast<int>(sizes.size()))
    return -1;
  return sizes[static_cast<std::size_t>(id)];
}

} // namespace perfcast
