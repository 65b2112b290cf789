#include "core/Error.hpp"

#include <fmt/format.h>

namespace perfcast {

void fail_at(const std::string& file, std::size_t line, const std::string& what)
{
  throw Error(fmt::format("{}:{}: {}", file, line, what));
}

void fail_in(const std::string& file, const std::string& what)
{
  throw Error(fmt::format("{}: {}", file, what));
}

} // namespace perfcast
