#include "trace/Preload.hpp"

#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <iterator>

namespace perfcast {

namespace {

std::string read_whole_file_or_empty(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <typename T> bool read_at(const std::string& data, std::uint64_t offset, T& out)
{
  if (offset > data.size() || data.size() - offset < sizeof(T))
    return false;
  std::memcpy(&out, data.data() + offset, sizeof(T));
  return true;
}

} // namespace

// DT_NEEDED entries of a 64-bit ELF shared object ({} when it is not one)
std::vector<std::string> needed_libraries(const std::string& path)
{
  std::string data = read_whole_file_or_empty(path);
  Elf64_Ehdr eh;
  if (!read_at(data, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
    return {};
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!read_at(data, eh.e_phoff + std::uint64_t(i) * eh.e_phentsize, ph))
      return {};
    if (ph.p_type == PT_LOAD)
      loads.push_back(ph);
    else if (ph.p_type == PT_DYNAMIC)
      dynamic = ph;
  }
  std::vector<std::uint64_t> needed;
  std::uint64_t strtab = 0;
  for (std::uint64_t off = dynamic.p_offset; off + sizeof(Elf64_Dyn) <= dynamic.p_offset + dynamic.p_filesz;
       off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    if (!read_at(data, off, d) || d.d_tag == DT_NULL)
      break;
    if (d.d_tag == DT_NEEDED)
      needed.push_back(d.d_un.d_val);
    else if (d.d_tag == DT_STRTAB)
      strtab = d.d_un.d_ptr;
  }
  // the string table's address, as a file offset
  std::uint64_t strtab_offset = 0;
  bool mapped = false;
  for (const auto& ph : loads)
    if (strtab >= ph.p_vaddr && strtab < ph.p_vaddr + ph.p_filesz) {
      strtab_offset = strtab - ph.p_vaddr + ph.p_offset;
      mapped = true;
    }
  std::vector<std::string> names;
  for (std::uint64_t n : needed)
    if (mapped && strtab_offset + n < data.size())
      names.emplace_back(data.c_str() + strtab_offset + n);
  return names;
}

std::string sanitizer_runtime_of(const std::string& library)
{
  for (const std::string& name : needed_libraries(library))
    if (name.rfind("libasan.so", 0) == 0)
      return name;
  return "";
}

} // namespace perfcast
