#include "Command.hpp"

#include <iostream>

namespace perfcast::cli {

void print_warnings(const std::vector<std::string>& warnings)
{
  for (const std::string& w : warnings)
    std::cerr << "warning: " << w << "\n";
}

} // namespace perfcast::cli
