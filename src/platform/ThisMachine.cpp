#include "platform/ThisMachine.hpp"

#include "core/Error.hpp"
#include "core/Version.hpp"

#include <hwloc.h>
#include <memory>
#include <unistd.h>

namespace perfcast {

MachineDescription describe_this_machine()
{
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0)
    throw Error("hwloc: cannot initialise the topology");
  std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> guard(topology, hwloc_topology_destroy);
  if (hwloc_topology_load(topology) != 0)
    throw Error("hwloc: cannot read this machine's topology");
  MachineDescription m;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0)
    m.host = name;
  if (m.host.empty())
    m.host = "localhost";
  int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  int pus = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
  m.hardware_threads = pus > 0 ? pus : 1;
  m.cores = cores > 0 ? cores : m.hardware_threads;
  hwloc_obj_t root = hwloc_get_root_obj(topology);
  // the kernel's figure: hwloc reads NUMA nodes, which virtual machines may under-report
  long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0)
    m.memory_bytes = static_cast<double>(pages) * static_cast<double>(page_size);
  else if (root && root->total_memory > 0)
    m.memory_bytes = static_cast<double>(root->total_memory);
  hwloc_obj_t package = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0);
  const char* model = package ? hwloc_obj_get_info_by_name(package, "CPUModel") : nullptr;
  if (!model && root)
    model = hwloc_obj_get_info_by_name(root, "CPUModel");
  if (model)
    m.cpu_model = model;
  while (!m.cpu_model.empty() && m.cpu_model.back() == ' ')
    m.cpu_model.pop_back();
  return m;
}

nlohmann::json this_machine_platform(const MachineDescription& machine, const SpeedSource& speed,
                                     double loopback_bytes_per_s)
{
  nlohmann::json node = {{"names", {machine.host}}, {"speed", speed.flops_per_core}, {"cores", machine.cores}};
  return {{"format", "perfcast-platform"},
          {"version", 1},
          {"generator", kPerfcastGenerator},
          {"description", {{"what", "the machine perfcast ran on, read with hwloc"},
                           {"cpu_model", machine.cpu_model},
                           {"hardware_threads", machine.hardware_threads},
                           {"memory_bytes", machine.memory_bytes},
                           {"speed_from", speed.how},
                           {"loopback", "bandwidth of a large memcpy measured now; latency not measured (1us)"}}},
          {"clusters",
           {{{"name", "this-machine"},
             // one host: every message takes the loopback link; the NIC figures only
             // matter if more hosts are added to this file
             {"bandwidth", "10Gbps"},
             {"latency", "50us"},
             {"loopback", {{"bandwidth", loopback_bytes_per_s}, {"latency", "1us"}}},
             {"nodes", {node}}}}}};
}

} // namespace perfcast
