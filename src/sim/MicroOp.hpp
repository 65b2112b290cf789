#pragma once
// The primitive steps a rank executes. Every trace action, collectives
// included, is expanded into these point-to-point, compute and wait steps.
#include <cstdint>
#include <vector>

namespace perfcast {

enum class OpCode : std::uint8_t {
  Compute,   ///< value = flops
  Sleep,     ///< value = seconds
  Send,      ///< blocking send (returns at once below the eager threshold)
  Isend,     ///< non-blocking send
  Recv,      ///< blocking receive
  Irecv,     ///< non-blocking receive
  WaitKey,   ///< wait for the oldest trace request with key (peer=src, peer2=dst, tag)
  TestKey,   ///< test the oldest trace request with that key (costs smpi/test)
  TestCheck, ///< after a test's smpi/test delay: see whether its request completed
  CancelKey, ///< cancel the oldest trace request with that key
  WaitAll,   ///< wait for every pending trace request
  TestAll,   ///< test every pending trace request (costs smpi/test)
  TestAllCheck, ///< after a testall's delay: all complete are released, else none
  WaitAny,   ///< wait for one pending trace request (the first to complete); sync = waitsome: all completed
  WaitGroup, ///< wait for the requests of the current collective
  LoopCheck, ///< inside a loop block: leave it if the latest receive got the stop tag
  CommCreate, ///< after comm_split/comm_dup's exchange: bind the new communicator (peer = split record)
};

/// Message contexts of a schedule before the engine maps them to a
/// communicator's: user point-to-point traffic never matches collective traffic.
enum class Context : std::uint16_t { User = 0, Collective = 1 };

struct MicroOp {
  OpCode code = OpCode::Compute;
  std::uint16_t ctx = 0;    ///< a Context in schedules; the communicator's context id once mapped
  bool sync = false;        ///< synchronous send (never eager)
  bool in_group = false;    ///< non-blocking request belongs to the collective group
  std::int32_t peer = 0;
  std::int32_t peer2 = 0;
  std::int32_t tag = 0;
  std::int32_t comm = 0;    ///< communicator handle of a request key (wait, test, cancel)
  std::uint64_t bytes = 0;
  double value = 0;
};

} // namespace perfcast
