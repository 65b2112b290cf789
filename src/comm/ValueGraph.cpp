#include "comm/ValueGraph.hpp"

#include "core/Error.hpp"

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace perfcast::comm {

namespace {

// Reads whitespace-separated fields of one line at a time, keeping the line number.
class LineReader {
public:
  LineReader(const std::string& text, const std::string& name) : in_(text), name_(name) {}

  std::istringstream next(const char* expected)
  {
    std::string line;
    if (!std::getline(in_, line))
      fail_at(name_, line_ + 1, fmt::format("unexpected end of the graph, expected {}", expected));
    ++line_;
    return std::istringstream(line);
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(name_, line_, what); }

private:
  std::istringstream in_;
  std::string name_;
  std::size_t line_ = 0;
};

template <typename... T>
void read_fields(LineReader& r, std::istringstream& line, const char* expected, T&... fields)
{
  if (!(line >> ... >> fields))
    r.fail(fmt::format("expected {}", expected));
  std::string rest;
  if (line >> rest)
    r.fail(fmt::format("unexpected '{}' after {}", rest, expected));
}

} // namespace

ValueGraph parse_value_graph(const std::string& text, const std::string& name)
{
  LineReader r(text, name);
  ValueGraph g;
  std::string word;
  int version = 0;
  auto line = r.next("the header");
  read_fields(r, line, "'perfcast-comm-graph 2'", word, version);
  if (word != "perfcast-comm-graph" || (version != 1 && version != 2))
    r.fail("expected 'perfcast-comm-graph 2' or 1 (a graph written by the perfcast comm runtime)");
  int matched = 0;
  line = r.next("the region line");
  read_fields(r, line, "'region NAME MATCHED CALLS'", word, g.region, matched, g.region_calls);
  if (word != "region")
    r.fail("expected 'region NAME MATCHED CALLS'");
  if (g.region == "-")
    g.region.clear();
  g.region_matched = matched != 0;
  ValueCounts& c = g.counts;
  line = r.next("the counts line");
  read_fields(r, line, "'counts' and 7 numbers", word, c.values, c.copies, c.inputs, c.outputs, c.lost_flows,
              c.unhandled, c.peak_bytes);
  std::uint64_t count = 0;
  if (version >= 2) {
    line = r.next("'arrays N'");
    read_fields(r, line, "'arrays N'", word, count);
    if (word != "arrays")
      r.fail("expected 'arrays N'");
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint32_t id = 0;
      std::uint64_t bytes = 0;
      line = r.next("an array");
      read_fields(r, line, "'ID BYTES'", id, bytes);
      if (id == 0 || !g.arrays.emplace(id, bytes).second)
        r.fail(fmt::format("array {}: expected a positive id listed once", id));
    }
  }
  line = r.next("'vertices N'");
  read_fields(r, line, "'vertices N'", word, count);
  if (word != "vertices")
    r.fail("expected 'vertices N'");
  std::unordered_map<std::uint32_t, std::uint32_t> index;
  g.vertices.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    ValueVertex v;
    unsigned flags = 0;
    line = r.next("a vertex");
    if (version == 1)
      read_fields(r, line, "'ID BYTES WORK FLAGS'", v.id, v.bytes, v.work, flags);
    else
      read_fields(r, line, "'ID BYTES WORK FLAGS ARRAY OFFSET'", v.id, v.bytes, v.work, flags, v.array, v.offset);
    if (v.array && (!g.arrays.contains(v.array) || v.offset >= g.arrays[v.array]))
      r.fail(fmt::format("vertex {}: expected its array {} listed, with its offset {} inside", v.id, v.array,
                         v.offset));
    v.input = flags & 1;
    if (!index.emplace(v.id, static_cast<std::uint32_t>(g.vertices.size())).second)
      r.fail(fmt::format("vertex {} listed twice", v.id));
    g.vertices.push_back(v);
  }
  line = r.next("'edges N'");
  read_fields(r, line, "'edges N'", word, count);
  if (word != "edges")
    r.fail("expected 'edges N'");
  g.edges.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint32_t source = 0, sink = 0;
    ValueEdge e;
    line = r.next("an edge");
    read_fields(r, line, "'SOURCE SINK USES VERSIONS'", source, sink, e.uses, e.versions);
    auto s = index.find(source), t = index.find(sink);
    if (s == index.end() || t == index.end())
      r.fail(fmt::format("edge {} -> {}: expected both vertices in the vertex list", source, sink));
    e.source = s->second;
    e.sink = t->second;
    g.edges.push_back(e);
  }
  line = r.next("'end'");
  read_fields(r, line, "'end'", word);
  if (word != "end")
    r.fail("expected 'end'");
  return g;
}

ValueGraph read_value_graph(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail_in(path, "cannot read the value graph");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_value_graph(text.str(), path);
}

} // namespace perfcast::comm
