#pragma once
// What the queueing-model tests share: a model to play the truth and the run
// it would measure on a placement.
#include "qn/MeasuredRun.hpp"
#include "qn/QueueingModel.hpp"

namespace perfcast::test {

/// The truth the fits must recover: sends 200 + 50 ln n, messages 2000 +
/// 400000 / n bytes, B(n) = 4e7 + 6e5 n, V_comm 0.2, Net_Constant 1.7.
inline QueueingModel qn_truth_model(double work_flops)
{
  QueueingModel m;
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
