#pragma once
// Names for program counters sampled in a process that has ended, from a
// copy of its /proc/PID/maps and the ELF files it names (libdw, elfutils):
// the function from the symbol table (static C functions, C++ demangled,
// gfortran module procedures as module::procedure), and the functions
// inlined at that address from DWARF when the binary has it.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfcast::profile {

/// Names the addresses of one process's address space.
class Symbolizer {
public:
  /// Reads a maps file (the format of /proc/PID/maps); throws perfcast::Error
  /// naming the file when it cannot be read.
  explicit Symbolizer(const std::string& maps_path);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  /// The functions at `pc`, outermost first: the symbol's function, then the
  /// functions inlined into it down to the one holding the address. `return_address`
  /// says the pc follows a call (looked up one byte earlier). An address no
  /// symbol covers is named after its file, "[libfoo.so]", and any address in
  /// an MPI library's internals "[MPI internals]".
  const std::vector<std::string>& frames_at(std::uintptr_t pc, bool return_address);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Whether a mapped file is part of the MPI library (its code is lumped as "[MPI internals]").
bool is_mpi_library(const std::string& path);

/// A readable name: C++ demangled, gfortran's __mod_MOD_proc as mod::proc.
std::string readable_name(const std::string& symbol);

} // namespace perfcast::profile
