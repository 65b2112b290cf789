// libFuzzer target for perfcast's parsers: trace lines, SimGrid platform XML and
// perfcast platform JSON. Any input must give a value or a perfcast::Error,
// never a crash, a hang or another exception; and the trace parser's fast path
// must read every line it takes as the general path does.
// Build: cmake -B build-fuzz -DPERFCAST_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14
#include "core/Error.hpp"
#include "platform/Platform.hpp"
#include "trace/TraceReader.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

// every route between the first hosts must resolve without crashing
void exercise_routes(const perfcast::Platform& p)
{
  for (int a = 0; a < static_cast<int>(p.hosts().size()) && a < 4; ++a)
    for (int b = 0; b < static_cast<int>(p.hosts().size()) && b < 4; ++b)
      if (p.has_route(a, b))
        p.route(a, b);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  if (size == 0)
    return 0;
  // the first byte picks the parser, the rest is its input
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
  case 0: {
    perfcast::Action action;
    std::vector<std::string_view> tokens;
    std::string error;
    int default_datatype = 6;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      std::string_view line(text.data() + start, (end == std::string::npos ? text.size() : end) - start);
      int world = 1 + data[0] % 7;
      // the fast path may only take lines the general parser reads the same way
      perfcast::Action fast;
      if (perfcast::parse_trace_line_fast(line, world, default_datatype, fast)) {
        int dt = default_datatype;
        perfcast::Action general;
        if (!perfcast::parse_trace_line_general(line, world, dt, general, tokens, error) || !error.empty() ||
            fast.type != general.type || fast.rank != general.rank || fast.partner != general.partner ||
            fast.partner2 != general.partner2 || fast.tag != general.tag || fast.bytes != general.bytes ||
            fast.value != general.value || dt != default_datatype)
          std::abort();
      }
      perfcast::parse_trace_line(line, world, default_datatype, action, tokens, error);
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
    break;
  }
  case 1:
    try {
      exercise_routes(perfcast::parse_simgrid_platform(text, "fuzz.xml"));
    } catch (const perfcast::Error&) {
    }
    break;
  default:
    try {
      exercise_routes(perfcast::parse_json_platform(text, "fuzz.json"));
    } catch (const perfcast::Error&) {
    }
    break;
  }
  return 0;
}
