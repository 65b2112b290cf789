#include "trace/MpiFlavour.hpp"

#include "core/Error.hpp"
#include "trace/Preload.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

namespace perfcast {

namespace fs = std::filesystem;

namespace {

const char* display(const std::string& mpi)
{
  return mpi == "mpich" ? "MPICH" : mpi == "openmpi" ? "Open MPI" : mpi == "smpi" ? "SimGrid's SMPI" : "no MPI";
}

// the implementation one library name belongs to
std::string mpi_of_library(const std::string& name)
{
  if (name.rfind("libsimgrid", 0) == 0)
    return "smpi";
  if (name.rfind("libmpich", 0) == 0 || name.rfind("libmpi.so.12", 0) == 0)
    return "mpich";
  if (name.rfind("libmpi", 0) == 0 && name.find(".so.40") != std::string::npos)
    return "openmpi";
  if (name.rfind("libopen-rte", 0) == 0 || name.rfind("libopen-pal", 0) == 0)
    return "openmpi";
  return "";
}

// where the dynamic loader looks for a library by name on Debian (multiarch first)
std::string find_library(const std::string& name)
{
  for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib",
                          "/usr/lib", "/usr/local/lib"}) {
    fs::path p = fs::path(dir) / name;
    std::error_code ec;
    if (fs::exists(p, ec))
      return p.string();
  }
  return "";
}

std::string in_path(const std::string& command)
{
  if (command.find('/') != std::string::npos)
    return command;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    auto colon = dirs.find(':', pos);
    fs::path candidate = fs::path(dirs.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos)) / command;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    if (colon == std::string::npos)
      break;
    pos = colon + 1;
  }
  return "";
}

bool is_elf(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

} // namespace

std::string linked_mpi(const std::string& path, std::string* library)
{
  const std::vector<std::string> needed = needed_libraries(path);
  for (const std::string& name : needed)
    if (std::string mpi = mpi_of_library(name); !mpi.empty()) {
      if (library)
        *library = name;
      return mpi;
    }
  // one level down: a program that links MPI through another library (a solver, HDF5)
  for (const std::string& name : needed) {
    const std::string found = find_library(name);
    if (found.empty())
      continue;
    for (const std::string& inner : needed_libraries(found))
      if (std::string mpi = mpi_of_library(inner); !mpi.empty()) {
        if (library)
          *library = inner + " (through " + name + ")";
        return mpi;
      }
  }
  return "";
}

std::string launcher_mpi(const std::string& command)
{
  const std::string exe = in_path(command);
  if (exe.empty())
    return "";
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(exe, ec);
  const std::string name = (ec ? fs::path(exe) : real).filename().string();
  const std::string given = fs::path(command).filename().string();
  if (name.find("hydra") != std::string::npos || name.find("mpich") != std::string::npos ||
      given.find("mpich") != std::string::npos)
    return "mpich";
  if (name == "orterun" || name == "prterun" || name.find("openmpi") != std::string::npos ||
      given.find("openmpi") != std::string::npos)
    return "openmpi";
  // a launcher perfcast does not know by name: the program's library decides
  return "";
}

MpiChoice choose_mpi(const std::vector<std::string>& command, const std::string& requested)
{
  if (requested != "auto" && requested != "openmpi" && requested != "mpich")
    throw Error(fmt::format("--mpi '{}': expected auto, openmpi or mpich", requested));
  MpiChoice c;
  if (command.empty())
    return c;
  c.launcher = launcher_mpi(command[0]);
  // the program: the first executable ELF of the command line that links an MPI
  // (the launcher itself links its MPI's run-time: it is not the program)
  for (std::size_t i = c.launcher.empty() ? 0 : 1; i < command.size(); ++i) {
    const std::string& arg = command[i];
    if (arg.empty() || arg[0] == '-')
      continue;
    const std::string exe = arg.find('/') == std::string::npos && i == 0 ? in_path(arg) : arg;
    std::error_code ec;
    if (exe.empty() || !fs::is_regular_file(exe, ec) || ::access(exe.c_str(), X_OK) != 0 || !is_elf(exe))
      continue;
    std::string library;
    if (std::string mpi = linked_mpi(exe, &library); !mpi.empty()) {
      c.program = arg;
      c.program_library = library;
      c.mpi = mpi;
      break;
    }
  }
  if (c.mpi == "smpi")
    throw Error(fmt::format("{} is a SimGrid SMPI program ({}): record its trace with smpirun -trace-ti "
                            "(scripts/record-trace.sh), or build it with mpicc to trace it with perfcast trace",
                            c.program, c.program_library));
  if (!c.mpi.empty()) {
    if (!c.launcher.empty() && c.launcher != c.mpi)
      throw Error(fmt::format("{} is linked with {} ({}), but {} is {}'s launcher (expected the launcher of the "
                              "program's MPI: {}, or the program rebuilt with {}'s mpicc)",
                              c.program, display(c.mpi), c.program_library, command[0], display(c.launcher),
                              c.mpi == "mpich" ? "mpiexec.mpich" : "mpirun.openmpi", display(c.launcher)));
    if (requested != "auto" && requested != c.mpi)
      throw Error(fmt::format("--mpi {}: {} is linked with {} ({}) (expected --mpi {} or --mpi auto)", requested,
                              c.program, display(c.mpi), c.program_library, c.mpi));
    return c;
  }
  c.mpi = requested != "auto" ? requested : !c.launcher.empty() ? c.launcher : "openmpi";
  return c;
}

} // namespace perfcast
