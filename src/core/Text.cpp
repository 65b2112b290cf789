#include "core/Text.hpp"

#include "core/Error.hpp"

#include <fstream>
#include <sstream>

namespace perfcast {

std::string_view trim(std::string_view text)
{
  constexpr std::string_view kBlanks = " \t\r";
  auto a = text.find_first_not_of(kBlanks);
  if (a == std::string_view::npos)
    return {};
  return text.substr(a, text.find_last_not_of(kBlanks) - a + 1);
}

std::string read_file(const std::string& path, std::string_view what)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail_in(path, "cannot open " + std::string(what));
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

} // namespace perfcast
