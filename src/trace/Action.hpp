#pragma once
// One MPI action of a time-independent trace, as a compact value. Parsing is in
// ActionGrammar; the simulator only sees these values.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

enum class ActionType : std::uint8_t {
  Init,
  Finalize,
  Compute,
  Sleep,
  Send,
  Isend,
  Ssend,  // perfcast extension: synchronous send
  Issend, // perfcast extension
  Recv,
  Irecv,
  Wait,
  Test,
  Waitall,
  Waitany,  // perfcast extension
  Waitsome, // perfcast extension
  SendRecv,
  Barrier,
  Bcast,
  Reduce,
  Allreduce,
  Scan,
  Exscan,
  Alltoall,
  Alltoallv,
  Allgather,
  Allgatherv,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  ReduceScatter,
  CommSize,
  CommSplit,
  CommDup,
  Location,
  Migrate,      // AMPI-like, for load balancing
  IterationIn,  // AMPI-like
  IterationOut, // AMPI-like
  LoopBegin,    // perfcast extension: repeat until a receive gets the stop tag (tag field)
  LoopEnd,      // perfcast extension
  Cancel,       // perfcast extension: MPI_Cancel of the oldest pending request with key (src, dst, tag)
  Testall,      // SMPI's -trace-ti writes MPI_Testall as "testall" (hypre, in LLNL's AMG)
};
/// Number of action types (Init..Testall).
inline constexpr std::size_t kActionTypeCount = static_cast<std::size_t>(ActionType::Testall) + 1;

/// Marker for a receive from any source (SimGrid writes -333 or -555; perfcast -1).
inline constexpr int kAnySource = -1;
/// Marker for a receive with any tag (SimGrid writes -444; perfcast -1).
inline constexpr int kAnyTag = -1;
/// Send partner "@": the source of the sender's latest wildcard receive.
inline constexpr int kLastSource = -2;

struct Action {
  ActionType type = ActionType::Init;
  std::int32_t rank = 0;
  std::int32_t partner = 0;  ///< peer of p2p; root of rooted collectives; src of wait/test; dst of sendRecv
  std::int32_t partner2 = 0; ///< dst of wait/test; src of sendRecv
  std::int32_t tag = 0;
  std::int32_t comm = 0;     ///< communicator handle (perfcast "comm=N"; 0 is MPI_COMM_WORLD)
  bool nonblocking = false;  ///< non-blocking collective (perfcast "ibcast", "iallreduce", ...)
  std::uint32_t line = 0;    ///< line in the rank's trace file
  double value = 0;          ///< flops (compute, reduction work) or seconds (sleep)
  std::int32_t color = 0;    ///< comm_split: color (negative: MPI_UNDEFINED), new handle in tag
  std::int32_t key = 0;      ///< comm_split: key
  std::uint64_t bytes = 0;   ///< bytes sent (or contributed, for collectives)
  std::uint64_t recv_bytes = 0;
  std::vector<std::uint64_t> send_counts; ///< bytes per peer, v-collectives
  std::vector<std::uint64_t> recv_counts; ///< bytes per peer, v-collectives
};

/// The trace keyword of an action type.
std::string_view action_name(ActionType type);
/// The trace keyword of an action ("ibcast" for a non-blocking bcast).
std::string action_keyword(const Action& action);
/// Tag under which a non-blocking collective's request is waited for: wait R R -2.
inline constexpr int kCollectiveRequestTag = -2;

/// Whether an action type is a collective operation (and so has a non-blocking form).
bool is_collective(ActionType type);
/// Whether an action type sends or receives one point-to-point message (send, isend, ssend, issend, recv, irecv,
/// sendrecv).
bool is_point_to_point(ActionType type);
/// Whether an action type completes requests (wait, test, waitall, testall, waitany, waitsome).
bool is_request_completion(ActionType type);

/// Size in bytes of a SimGrid datatype id (0 double, 1 int, 2 char, ...); -1 when unknown.
int datatype_size(int id);

} // namespace perfcast
