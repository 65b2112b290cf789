#include "profile/Symbolizer.hpp"

#include "core/Error.hpp"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace perfcast::profile {
namespace {

struct Mapping {
  std::uintptr_t start = 0, end = 0, offset = 0;
  bool executable = false;
  std::string path;
};

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

bool is_mpi_library(const std::string& path) {
  // By the file name of a shared library, not by the whole path: a program
  // named miniMD_openmpi is the program, not Open MPI.
  const std::string base = base_name(path);
  if (base.find(".so") == std::string::npos) return false;
  for (const char* prefix : {"libmpi", "libopen-", "libmpich", "libpmix", "libucp", "libucs", "libuct", "libfabric",
                             "libhwloc", "libevent", "libprrte", "libpmi"})
    if (base.rfind(prefix, 0) == 0) return true;
  // Open MPI's components (mca_btl_vader.so, ...) in its library directory.
  return base.rfind("mca_", 0) == 0 && (path.find("/openmpi/") != std::string::npos || path.find("/mpich/") != std::string::npos);
}

std::string readable_name(const std::string& symbol) {
  if (symbol.rfind("_Z", 0) == 0) {
    int status = 0;
    char* d = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
    if (status == 0 && d) {
      std::string out = d;
      std::free(d);
      return out;
    }
    std::free(d);
  }
  const auto mod = symbol.find("_MOD_");
  if (symbol.rfind("__", 0) == 0 && mod != std::string::npos)
    return symbol.substr(2, mod - 2) + "::" + symbol.substr(mod + 5);
  return symbol;
}

struct Symbolizer::Impl {
  std::vector<Mapping> maps;
  Dwfl* dwfl = nullptr;
  std::map<std::pair<std::uintptr_t, bool>, std::vector<std::string>> cache;
  ~Impl() {
    if (dwfl) dwfl_end(dwfl);
  }
};

Symbolizer::Symbolizer(const std::string& maps_path) : impl_(std::make_unique<Impl>()) {
  std::ifstream in(maps_path);
  if (!in) throw Error(fmt::format("{}: cannot read (expected the address map the sampler wrote)", maps_path));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    if (!(fields >> range >> perms >> offset >> device >> inode))
      throw Error(fmt::format("{}:{}: '{}' (expected a /proc/PID/maps line)", maps_path, number, line));
    std::getline(fields >> std::ws, path);
    Mapping m;
    const auto dash = range.find('-');
    try {
      m.start = std::stoull(range.substr(0, dash), nullptr, 16);
      m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
      m.offset = std::stoull(offset, nullptr, 16);
    } catch (const std::exception&) {
      throw Error(fmt::format("{}:{}: '{}' (expected START-END and OFFSET in hexadecimal)", maps_path, number, line));
    }
    m.executable = perms.size() > 2 && perms[2] == 'x';
    m.path = path;
    impl_->maps.push_back(m);
  }
  static const Dwfl_Callbacks callbacks = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
                                           dwfl_offline_section_address, nullptr};
  impl_->dwfl = dwfl_begin(&callbacks);
  if (!impl_->dwfl) throw Error(fmt::format("{}: libdw could not start ({})", maps_path, dwfl_errmsg(-1)));
  dwfl_report_begin(impl_->dwfl);
  // Each file once, at the address its first mapping (offset 0) starts.
  std::map<std::string, std::uintptr_t> bases;
  for (const Mapping& m : impl_->maps)
    if (!m.path.empty() && m.path[0] == '/' && m.offset == 0 && !bases.count(m.path)) bases[m.path] = m.start;
  for (const Mapping& m : impl_->maps) {
    if (!m.executable || !bases.count(m.path)) continue;
    const std::uintptr_t base = bases[m.path];
    bases.erase(m.path); // reported now
    dwfl_report_elf(impl_->dwfl, base_name(m.path).c_str(), m.path.c_str(), -1, base, false);
  }
  dwfl_report_end(impl_->dwfl, nullptr, nullptr);
}

Symbolizer::~Symbolizer() = default;

const std::vector<std::string>& Symbolizer::frames_at(std::uintptr_t pc, bool return_address) {
  const auto key = std::make_pair(pc, return_address);
  if (auto it = impl_->cache.find(key); it != impl_->cache.end()) return it->second;
  const std::uintptr_t at = return_address && pc > 0 ? pc - 1 : pc;
  std::vector<std::string> frames;
  const Mapping* mapping = nullptr;
  for (const Mapping& m : impl_->maps)
    if (at >= m.start && at < m.end) mapping = &m;
  if (mapping && is_mpi_library(mapping->path)) {
    frames.push_back("[MPI internals]");
  }
  Dwfl_Module* module = dwfl_addrmodule(impl_->dwfl, at);
  const char* symbol = module ? dwfl_module_addrname(module, at) : nullptr;
  if (symbol) {
    const std::string name = readable_name(symbol);
    // Exported MPI entry points keep their names; internals are lumped.
    if (!frames.empty() && (name.rfind("MPI_", 0) == 0 || name.rfind("PMPI_", 0) == 0 || name.rfind("mpi_", 0) == 0))
      frames.clear();
    if (frames.empty()) {
      frames.push_back(name);
      // Inlined functions from DWARF, outermost first.
      Dwarf_Addr bias = 0;
      if (Dwarf_Die* cu = dwfl_module_addrdie(module, at, &bias)) {
        Dwarf_Die* scopes = nullptr;
        const int n = dwarf_getscopes(cu, at - bias, &scopes);
        std::vector<std::string> inlined;
        for (int i = 0; i < n; ++i)
          if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
            Dwarf_Attribute origin_attr;
            Dwarf_Die origin;
            const char* iname = nullptr;
            if (dwarf_attr(&scopes[i], DW_AT_abstract_origin, &origin_attr) &&
                dwarf_formref_die(&origin_attr, &origin))
              iname = dwarf_diename(&origin);
            if (iname) inlined.push_back(readable_name(iname));
          }
        std::free(scopes);
        for (auto it = inlined.rbegin(); it != inlined.rend(); ++it) frames.push_back(*it);
      }
    }
  } else if (frames.empty()) {
    frames.push_back(mapping && !mapping->path.empty() ? "[" + base_name(mapping->path) + "]" : "[unknown]");
  }
  return impl_->cache.emplace(key, std::move(frames)).first->second;
}

} // namespace perfcast::profile
