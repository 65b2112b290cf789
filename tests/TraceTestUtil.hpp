#pragma once
// Programs written as traces for the tests: a program is each rank's actions
// at n processes, and its trace at a count is written as `perfcast trace` would.
#include "TestUtil.hpp"

#include "trace/Action.hpp"
#include "trace/TraceWriter.hpp"

#include <functional>
#include <string>
#include <vector>

namespace perfcast::test {

/// A program: rank r's actions at n processes.
using Program = std::function<std::vector<Action>(int n, int r)>;

inline Action act(ActionType type, int rank, int partner = 0, std::uint64_t bytes = 0, double value = 0)
{
  Action a;
  a.type = type;
  a.rank = rank;
  a.partner = partner;
  a.bytes = bytes;
  a.value = value;
  return a;
}

/// Writes the program's trace at n processes into DIR/NAME; returns its index.
inline std::string write_trace(const TempDir& dir, const std::string& name, int n, const Program& program)
{
  std::string out = dir.path() + "/" + name;
  TraceWriter w(out, n);
  for (int r = 0; r < n; ++r)
    for (const Action& a : program(n, r))
      w.write(a);
  w.close();
  return out + "/trace.txt";
}

/// The program's traces at each count, in DIR/tN.
inline std::vector<std::string> training(const TempDir& dir, const Program& program,
                                         std::vector<int> counts = {1, 2, 4, 8})
{
  std::vector<std::string> traces;
  for (int n : counts)
    traces.push_back(write_trace(dir, "t" + std::to_string(n), n, program));
  return traces;
}

} // namespace perfcast::test
