#pragma once
// The value communication graph (VCG) of CommAnalyzer (Helal et al., section
// 4.2.1) as the comm runtime writes it at the end of an instrumented run:
// vertices are compressed runs of program values, edges carry how often the
// sink used the source and how many distinct source values it used.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace perfcast::comm {

/// One vertex: a memory location's run of values with non-overlapping lives.
struct ValueVertex {
  std::uint32_t id = 0;    ///< the runtime's vertex number
  unsigned bytes = 0;      ///< size of one value
  std::uint64_t work = 0;  ///< values computed into it inside the region
  bool input = false;      ///< read before any instrumented write
  std::uint32_t array = 0; ///< the heap block it was created in (an id of ValueGraph::arrays), 0 for none
  std::uint64_t offset = 0; ///< its byte offset in that block
};

/// A value-flow edge source -> sink (indices into ValueGraph::vertices).
/// 16 bytes: a large graph holds tens of millions; the counts are 32-bit as
/// the runtime keeps them (uses saturate at 2^32 - 1, versions too).
struct ValueEdge {
  ValueEdge() = default;
  ValueEdge(std::uint32_t from, std::uint32_t to, std::uint64_t use_count, std::uint64_t version_count)
      : source(from), sink(to), uses(saturated(use_count)), versions(saturated(version_count))
  {
  }
  std::uint32_t source = 0;
  std::uint32_t sink = 0;
  std::uint32_t uses = 0;     ///< times a sink value was computed from a source value
  std::uint32_t versions = 0; ///< distinct source values used (received once each)

  static std::uint32_t saturated(std::uint64_t n)
  {
    return n < 0xffffffffu ? static_cast<std::uint32_t>(n) : 0xffffffffu;
  }
};

/// Run-wide figures of the value-flow analysis.
struct ValueCounts {
  std::uint64_t values = 0;       ///< values created by stores
  std::uint64_t copies = 0;       ///< stores and memcpy that moved a value without creating one
  std::uint64_t inputs = 0;       ///< locations read before written
  std::uint64_t outputs = 0;      ///< vertices whose value was still in memory at exit
  std::uint64_t lost_flows = 0;   ///< register sets reclaimed before their use (flow not recorded)
  std::uint64_t unhandled = 0;    ///< static instructions the pass could not model (atomics, asm)
  std::uint64_t peak_bytes = 0;   ///< the analysis's own peak memory
};

/// The graph of the analysed region of one run.
struct ValueGraph {
  std::string region;           ///< function name, empty for the whole run
  bool region_matched = false;  ///< some instrumented function had that name
  std::uint64_t region_calls = 0;
  ValueCounts counts;
  std::vector<ValueVertex> vertices;
  std::vector<ValueEdge> edges;
  std::map<std::uint32_t, std::uint64_t> arrays; ///< heap block id -> its size in bytes (graph version 2)

  /// Calls of the region, or 1 for a whole-run analysis.
  std::uint64_t iterations() const { return region.empty() ? 1 : region_calls; }
};

/// Reads a graph file written by the runtime; throws Error (file:line: what was expected).
ValueGraph read_value_graph(const std::string& path);

/// Parses graph text; `name` is used in error messages.
ValueGraph parse_value_graph(const std::string& text, const std::string& name);

} // namespace perfcast::comm
