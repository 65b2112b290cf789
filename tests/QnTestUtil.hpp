#pragma once
// What the queueing-model tests share: a model to play the truth and the run
// it would measure on a placement.
#include "TestUtil.hpp"
#include "fit/Curve.hpp"
#include "platform/Platform.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/ClosedNetwork.hpp"
#include "qn/QueueingModel.hpp"

#include <string>

namespace perfcast::test {

/// 2 hosts of 8 cores at 9.6 Gflop/s, 125 MB/s (1 Gbit/s) links of 50 us, no loopback: a host's
/// messages to itself cross its own up and down links, as in SimGrid.
inline Platform qn_two_nodes() { return load_platform(source_dir() + "/examples/platforms/table1-2nodes.json"); }

/// The demand of the station named `name` in `net` (a failure when there is none).
inline double demand_of(const ClosedNetwork& net, const std::string& name)
{
  for (const Station& s : net.stations)
    if (s.name == name)
      return s.demand_s;
  ADD_FAILURE() << "no station " << name;
  return -1;
}

/// 100 sends of 125 kB per process (1 ms on a 125 MB/s link), constant in n,
/// Net_Constant 1, the given share of time in MPI and total work.
inline QueueingModel qn_plain_model(double v_comm, double work_flops)
{
  QueueingModel m;
  m.sends = {CurveForm::Constant, 100, 0};
  m.message_bytes = {CurveForm::Constant, 125000, 0};
  m.v_comp = 1 - v_comm;
  m.v_comm = v_comm;
  m.work_flops = work_flops;
  m.net_constant = 1;
  return m;
}

/// The truth the fits must recover: sends 200 + 50 ln n, messages 2000 +
/// 400000 / n bytes, B(n) = 4e7 + 6e5 n, V_comm 0.2, Net_Constant 1.7; a
/// node's processes in lockstep, as fit_queueing_model assumes by default.
inline QueueingModel qn_truth_model(double work_flops)
{
  QueueingModel m;
  m.lockstep = true;
  m.sends = {CurveForm::LogLinear, 200, 50};
  m.message_bytes = {CurveForm::Inverse, 2000, 400000};
  m.run_bytes = Curve{CurveForm::Linear, 4e7, 6e5}; // B(n); m(n) = B(n) / (n s(n))
  m.v_comm = 0.2;
  m.v_comp = 0.8;
  m.work_flops = work_flops;
  m.net_constant = 1.7;
  return m;
}

/// The run `truth` predicts on `placement` (host index -> processes), as a
/// measurement; a one-process run sends nothing and spends no time in MPI.
inline MeasuredRun qn_synthetic_run(const QueueingModel& truth, const Platform& p, const HostCounts& placement)
{
  MeasuredRun r;
  for (const auto& [h, c] : placement) {
    r.placement[p.hosts()[static_cast<std::size_t>(h)].name] = c;
    r.procs += c;
  }
  r.time_s = predict_run_time(truth, p, placement, MvaSolver::Exact).time_s;
  r.mpi_s = r.procs > 1 ? truth.v_comm * r.time_s : 0.0;
  r.sends_per_process = r.procs > 1 ? truth.sends(r.procs) : 0.0;
  r.message_bytes = r.procs > 1 ? message_bytes_at(truth, r.procs) : 0.0;
  r.source = "synthetic";
  return r;
}

} // namespace perfcast::test
