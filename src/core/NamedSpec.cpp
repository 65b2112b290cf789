#include "core/NamedSpec.hpp"

#include "core/Error.hpp"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

namespace perfcast {

NamedSpec parse_named_spec(const std::string& spec, std::string_view what)
{
  NamedSpec out;
  auto colon = spec.find(':');
  out.name = spec.substr(0, colon);
  if (colon == std::string::npos)
    return out;
  std::string rest = spec.substr(colon + 1);
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t end = rest.find(',', start);
    std::string item = rest.substr(start, end == std::string::npos ? std::string::npos : end - start);
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(fmt::format("{} '{}': '{}' is not key=value", what, spec, item));
    std::string key = item.substr(0, eq), text = item.substr(eq + 1);
    char* stop = nullptr;
    double v = std::strtod(text.c_str(), &stop);
    if (text.empty() || *stop != '\0' || !std::isfinite(v))
      throw Error(fmt::format("{} '{}': {} = '{}' is not a finite number", what, spec, key, text));
    out.values.emplace_back(key, v);
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return out;
}

std::string join_names(const std::vector<std::string>& names)
{
  std::string list;
  for (const std::string& n : names)
    list += (list.empty() ? "" : ", ") + n;
  return list;
}

} // namespace perfcast
