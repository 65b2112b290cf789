#pragma once
// What the sweep's library and command tests share: a four-node cluster and
// traces of VPs that compute, reach one migration point and compute again.
#include "TestUtil.hpp"

#include <string>
#include <vector>

namespace perfcast::test {

/// Four 1 Gflop/s nodes on 125 MB/s links with 50 us latency.
inline const char* kSweepCluster = R"(<platform version="4.1">
  <cluster id="c" prefix="n" radical="0-3" speed="1Gf" bw="125MBps" lat="50us"/></platform>)";

/// Writes DIR/NAME (one rank file per VP, `flops` each before and after a
/// 1.25 MB migration point) and returns its index path.
inline std::string write_sweep_level(const TempDir& dir, const std::string& name,
                                     const std::vector<std::string>& flops)
{
  std::string index;
  for (std::size_t v = 0; v < flops.size(); ++v) {
    std::string r = std::to_string(v);
    dir.file(name + "/rank" + r + ".txt", r + " init\n" + r + " compute " + flops[v] + "\n" + r +
                                              " migrate 1250000\n" + r + " compute " + flops[v] + "\n" + r +
                                              " finalize\n");
    index += "rank" + r + ".txt\n";
  }
  return dir.file(name + "/trace.txt", index);
}

} // namespace perfcast::test
