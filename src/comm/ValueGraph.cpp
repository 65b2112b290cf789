#include "comm/ValueGraph.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <string_view>
#include <unordered_map>

namespace perfcast::comm {

namespace {

// The lines of a graph, from text in memory or streamed from a file through
// one fixed buffer (a graph of hundreds of megabytes is never held whole).
class LineSource {
public:
  explicit LineSource(std::string_view text) : text_(text) {}
  explicit LineSource(std::FILE* file) : file_(file), buffer_(std::make_unique<char[]>(kBuffer)) {}

  /// The next line without its newline, or false at the end.
  bool next(std::string_view& line)
  {
    if (!file_) {
      if (pos_ >= text_.size())
        return false;
      std::size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos)
        end = text_.size();
      line = text_.substr(pos_, end - pos_);
      pos_ = end + 1;
      return true;
    }
    for (;;) {
      const char* begin = buffer_.get() + pos_;
      if (const void* nl = std::memchr(begin, '\n', used_ - pos_)) {
        std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.get());
        line = std::string_view(begin, end - pos_);
        pos_ = end + 1;
        return true;
      }
      if (eof_) {
        if (pos_ >= used_)
          return false;
        line = std::string_view(begin, used_ - pos_); // a last line without newline
        pos_ = used_;
        return true;
      }
      std::memmove(buffer_.get(), begin, used_ - pos_);
      used_ -= pos_;
      pos_ = 0;
      if (used_ == kBuffer)
        return false; // a line longer than the buffer: the caller reports what it expected
      std::size_t got = std::fread(buffer_.get() + used_, 1, kBuffer - used_, file_);
      used_ += got;
      if (got == 0)
        eof_ = true;
    }
  }

private:
  static constexpr std::size_t kBuffer = 1u << 22;
  std::string_view text_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  std::size_t pos_ = 0, used_ = 0;
  bool eof_ = false;
};

// Whitespace-separated fields of one line at a time, keeping the line number.
class LineReader {
public:
  LineReader(LineSource& source, const std::string& name) : source_(source), name_(name) {}

  void next(const char* expected)
  {
    if (!source_.next(line_))
      fail_at(name_, line_number_ + 1, fmt::format("unexpected end of the graph, expected {}", expected));
    ++line_number_;
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(name_, line_number_, what); }
  std::size_t line_number() const { return line_number_; }

  /// The next field of the line, empty at its end.
  std::string_view word()
  {
    std::size_t i = 0;
    while (i < line_.size() && (line_[i] == ' ' || line_[i] == '\t' || line_[i] == '\r'))
      ++i;
    std::size_t j = i;
    while (j < line_.size() && line_[j] != ' ' && line_[j] != '\t' && line_[j] != '\r')
      ++j;
    std::string_view w = line_.substr(i, j - i);
    line_.remove_prefix(j);
    return w;
  }

  bool field(std::string& out)
  {
    std::string_view w = word();
    out.assign(w);
    return !w.empty();
  }
  template <typename T>
  bool field(T& out)
  {
    std::string_view w = word();
    auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), out);
    return !w.empty() && ec == std::errc() && end == w.data() + w.size();
  }

  /// Reads the fields, failing unless the line holds exactly them.
  template <typename... T>
  void read(const char* expected, T&... fields)
  {
    if (!(field(fields) && ...))
      fail(fmt::format("expected {}", expected));
    if (std::string_view rest = word(); !rest.empty())
      fail(fmt::format("unexpected '{}' after {}", rest, expected));
  }

private:
  LineSource& source_;
  std::string name_;
  std::string_view line_;
  std::size_t line_number_ = 0;
};

// Vertex ids to indices: a table when the runtime's ids are dense (they are
// numbered from 1 as created), a hash map otherwise.
class VertexIndex {
public:
  /// Indexes the vertices; returns the position of the first one whose id
  /// was listed before, or the vertex count when none was.
  std::size_t build(const std::vector<ValueVertex>& vertices)
  {
    std::uint64_t most = 0;
    for (const ValueVertex& v : vertices)
      most = std::max<std::uint64_t>(most, v.id);
    dense_ = most <= 4 * vertices.size() + (1u << 20);
    if (dense_)
      table_.assign(most + 1, kNone);
    for (std::size_t i = 0; i < vertices.size(); ++i) {
      std::uint32_t id = vertices[i].id, at = static_cast<std::uint32_t>(i);
      bool fresh = dense_ ? table_[id] == kNone : map_.emplace(id, at).second;
      if (!fresh)
        return i;
      if (dense_)
        table_[id] = at;
    }
    return vertices.size();
  }
  /// The index of id, or false when no vertex has it.
  bool find(std::uint32_t id, std::uint32_t& index) const
  {
    if (dense_) {
      if (id >= table_.size() || table_[id] == kNone)
        return false;
      index = table_[id];
      return true;
    }
    auto it = map_.find(id);
    if (it == map_.end())
      return false;
    index = it->second;
    return true;
  }

private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  bool dense_ = true;
  std::vector<std::uint32_t> table_;
  std::unordered_map<std::uint32_t, std::uint32_t> map_;
};

ValueGraph parse(LineSource& source, const std::string& name)
{
  LineReader r(source, name);
  ValueGraph g;
  std::string word;
  int version = 0;
  r.next("the header");
  r.read("'perfcast-comm-graph 2'", word, version);
  if (word != "perfcast-comm-graph" || (version != 1 && version != 2))
    r.fail("expected 'perfcast-comm-graph 2' or 1 (a graph written by the perfcast comm runtime)");
  int matched = 0;
  r.next("the region line");
  r.read("'region NAME MATCHED CALLS'", word, g.region, matched, g.region_calls);
  if (word != "region")
    r.fail("expected 'region NAME MATCHED CALLS'");
  if (g.region == "-")
    g.region.clear();
  g.region_matched = matched != 0;
  ValueCounts& c = g.counts;
  r.next("the counts line");
  r.read("'counts' and 7 numbers", word, c.values, c.copies, c.inputs, c.outputs, c.lost_flows, c.unhandled,
         c.peak_bytes);
  std::uint64_t count = 0;
  if (version >= 2) {
    r.next("'arrays N'");
    r.read("'arrays N'", word, count);
    if (word != "arrays")
      r.fail("expected 'arrays N'");
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint32_t id = 0;
      std::uint64_t bytes = 0;
      r.next("an array");
      r.read("'ID BYTES'", id, bytes);
      if (id == 0 || !g.arrays.emplace(id, bytes).second)
        r.fail(fmt::format("array {}: expected a positive id listed once", id));
    }
  }
  r.next("'vertices N'");
  r.read("'vertices N'", word, count);
  if (word != "vertices")
    r.fail("expected 'vertices N'");
  g.vertices.reserve(count);
  std::size_t first_vertex_line = r.line_number() + 1;
  std::uint32_t last_array = 0;
  std::uint64_t last_array_bytes = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    ValueVertex v;
    unsigned flags = 0;
    r.next("a vertex");
    if (version == 1)
      r.read("'ID BYTES WORK FLAGS'", v.id, v.bytes, v.work, flags);
    else
      r.read("'ID BYTES WORK FLAGS ARRAY OFFSET'", v.id, v.bytes, v.work, flags, v.array, v.offset);
    if (v.array && v.array != last_array) {
      auto it = g.arrays.find(v.array);
      last_array = v.array;
      last_array_bytes = it == g.arrays.end() ? 0 : it->second;
    }
    if (v.array && v.offset >= last_array_bytes)
      r.fail(fmt::format("vertex {}: expected its array {} listed, with its offset {} inside", v.id, v.array,
                         v.offset));
    v.input = flags & 1;
    g.vertices.push_back(v);
  }
  VertexIndex index;
  if (std::size_t twice = index.build(g.vertices); twice < g.vertices.size())
    fail_at(name, first_vertex_line + twice, fmt::format("vertex {} listed twice", g.vertices[twice].id));
  r.next("'edges N'");
  r.read("'edges N'", word, count);
  if (word != "edges")
    r.fail("expected 'edges N'");
  g.edges.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint32_t source = 0, sink = 0;
    std::uint64_t uses = 0, versions = 0;
    ValueEdge e;
    r.next("an edge");
    r.read("'SOURCE SINK USES VERSIONS'", source, sink, uses, versions);
    if (!index.find(source, e.source) || !index.find(sink, e.sink))
      r.fail(fmt::format("edge {} -> {}: expected both vertices in the vertex list", source, sink));
    e.uses = ValueEdge::saturated(uses);
    e.versions = ValueEdge::saturated(versions);
    g.edges.push_back(e);
  }
  r.next("'end'");
  r.read("'end'", word);
  if (word != "end")
    r.fail("expected 'end'");
  return g;
}

} // namespace

ValueGraph parse_value_graph(const std::string& text, const std::string& name)
{
  LineSource source{std::string_view(text)};
  return parse(source, name);
}

ValueGraph read_value_graph(const std::string& path)
{
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file)
    fail_in(path, "cannot read the value graph");
  LineSource source(file.get());
  return parse(source, path);
}

} // namespace perfcast::comm
