#pragma once
// One rank's actions, in order, from wherever they come: a trace file
// (RankReader) or a generator that writes no file (appmodel's extrapolated
// ranks). The replay reads every rank through this.
#include "trace/Action.hpp"

#include <string>

namespace perfcast {

class ActionStream {
public:
  virtual ~ActionStream() = default;
  /// Reads the next action; false at the end of the rank's actions.
  virtual bool next(Action& out) = 0;
  /// Where the actions come from, for messages ("run/rank-3.txt", "extrapolated rank 3 at 64 processes").
  virtual const std::string& path() const = 0;
};

} // namespace perfcast
