#pragma once
// Which MPI implementation a traced command uses, so that the tracer built
// for it is preloaded: told by the libraries the program links (its ELF
// DT_NEEDED entries, and theirs one level down), checked against the
// launcher (mpirun of Open MPI, mpiexec of MPICH's Hydra).
#include <string>
#include <vector>

namespace perfcast {

/// What the command line says about its MPI.
struct MpiChoice {
  std::string mpi;             ///< "openmpi" or "mpich": the tracer to preload
  std::string program;         ///< the MPI program found in the command ("" when none links MPI)
  std::string program_library; ///< the MPI library it links, e.g. libmpich.so.12
  std::string launcher;        ///< the launcher's implementation ("" when command[0] is not a launcher)
};

/// The implementation an ELF file links ("openmpi", "mpich", "smpi" for
/// SimGrid's SMPI, or "" when it links none it can see); `library` gets the
/// library that told.
std::string linked_mpi(const std::string& path, std::string* library = nullptr);

/// The implementation a launcher belongs to ("openmpi", "mpich", or "" when
/// the command is not an MPI launcher), from its name with links followed.
std::string launcher_mpi(const std::string& command);

/// The tracer for `command`: `requested` ("auto", "openmpi" or "mpich") or,
/// for auto, the program's library, else the launcher's, else Open MPI's.
/// Throws Error when the program links another MPI than the launcher or the
/// request, or is a SimGrid SMPI program.
MpiChoice choose_mpi(const std::vector<std::string>& command, const std::string& requested);

} // namespace perfcast
