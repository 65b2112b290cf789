#include "sim/Replay.hpp"

#include "sim/ReplayEngine.hpp"

namespace perfcast {

ReplayReport replay_trace(const TraceIndex& trace, const Platform& platform, const Placement& placement,
                          const ReplayOptions& options)
{
  return replay::ReplayEngine(trace, platform, placement, options).run();
}

} // namespace perfcast
