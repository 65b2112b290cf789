#include "qn/FitDescription.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace perfcast {

std::string describe_fitted_model(const QueueingModel& model, const AmdahlModel& amdahl,
                                  const std::vector<MeasuredRun>& runs)
{
  std::string out;
  out += fmt::format("queueing-network model fitted on {} runs ({}; {} iterations; {} degree{} of freedom)\n",
                           runs.size(), model.fit_message, model.iterations, model.degrees_of_freedom,
                           model.degrees_of_freedom == 1 ? "" : "s");
  auto uncertainty = [&](double relative_se) {
    return model.degrees_of_freedom > 0 ? fmt::format("  (standard error {:.1f}%)", 100 * relative_se)
                                        : std::string("  (uncertainty not estimable)");
  };
  out += fmt::format("  W (computation)       {:.6g} flop{}\n", model.work_flops, uncertainty(model.work_relative_se));
  if (model.work_growth)
    out += fmt::format("  work growth           W(n) = W x ({}) ({}, the runs' recorded work)\n",
                             model.work_growth->describe(), curve_form_name(model.work_growth->form));
  out += fmt::format("  Net_Constant          {:.6g}{}\n", model.net_constant,
                           uncertainty(model.net_constant_relative_se));
  out += fmt::format("  V_comp / V_comm       {:.4f} / {:.4f}\n", model.v_comp, model.v_comm);
  out += fmt::format("  network               {} queue{} per node{}{}\n", model.duplex_nic ? 2 : 1,
                           model.duplex_nic ? "s (full duplex, a transfer holds both at once)" : " (as the paper)",
                           model.latency_delay ? ", route latency as a delay" : ", no start-up time (as the paper)",
                           model.smpi_factors ? ", SMPI's size-dependent factors (the runs are SMPI replays)" : "");
  out += fmt::format("  customers             {}\n", model.node_classes
                                                                ? "one class per node (its processes use its own CPU "
                                                                  "and send queue)"
                                                                : "one class over every node (as the paper)");
  if (model.lockstep)
    out += fmt::format("  lockstep              a node's processes are one customer: its CPU phase the slowest "
                             "rank's ({:.4g} x the mean rank's work), its transfers all of theirs, an exchange as long as the "
                             "busiest link it uses\n",
                             model.imbalance);
  out += fmt::format("  s(n) sends/process    {} ({})\n", model.sends.describe(), curve_form_name(model.sends.form));
  out += fmt::format("  m(n) message bytes    {} ({})\n", model.message_bytes.describe(),
                           curve_form_name(model.message_bytes.form));
  if (model.run_bytes)
    out += fmt::format("  B(n) bytes per run    {} ({}); m(n) = B(n) / (n s(n))\n", model.run_bytes->describe(),
                             curve_form_name(model.run_bytes->form));
  if (model.grid) {
    const GridClasses& g = *model.grid;
    out += fmt::format("  process grid          {} ({}), besides s(n), B(n):\n", g.describe(), g.rule.describe());
    for (const GridClass& k : g.classes)
      out += fmt::format("    {:<14} {:.4g} messages per pair of {:.4g} B x {}^{:.2f} (seen at {})\n", k.name(),
                               k.messages_per_pair, k.bytes, k.cut ? "A" : "n", k.cut ? k.exponent : -k.exponent,
                               [&] {
                                 std::string at;
                                 for (int n : k.seen_at)
                                   at += (at.empty() ? "" : ", ") + std::to_string(n);
                                 return at;
                               }());
    if (!g.silent.empty())
      out += fmt::format("    {} offset{} silent (the training grids had them; nothing was sent)\n",
                               g.silent.size(), g.silent.size() == 1 ? "" : "s");
  }
  if (model.collectives) {
    out += "  collectives           calls a rank (the largest run's), payload c n^-k, expanded at n by the replay's "
                 "default algorithms, besides s(n), B(n):\n";
    for (const CollectiveType& t : model.collectives->types) {
      std::string roots;
      for (const auto& [rank, share] : t.roots)
        roots += fmt::format("{}{} ({:.0f}%)", roots.empty() ? "; root " : ", ", rank, 100 * share);
      out += fmt::format("    {:<14} {:.4g} calls of {:.4g} B x n^-{:.2f}{}\n", t.type, t.calls_per_rank,
                               t.payload_bytes, t.exponent, roots);
    }
  }
  if (model.halo) {
    const HaloExchange& h = *model.halo;
    if (h.periodic)
      out += fmt::format("  halo exchange         {}-D periodic grid across faces: {:.4g} messages per face crossed, "
                               "{:.4g} B x faces F_k(n) (p cut planes a side of p{}), k = {:.2f}; besides s(n), B(n)\n",
                               h.dimensions, h.messages_per_pair, h.bytes,
                               h.to_itself ? "; a side of 1 to the rank itself" : "", h.exponent);
    else
      out += fmt::format("  halo exchange         {}-D grid across {}: {:.4g} messages per neighbour pair, "
                               "{:.4g} B x faces F_k(n), k = {:.2f}; besides s(n), B(n)\n",
                               h.dimensions, h.diagonals ? "faces, edges and corners" : "faces", h.messages_per_pair,
                               h.bytes, h.exponent);
  }
  if (model.self_traffic)
    out += fmt::format("  to itself             {} (seen at {}), kept on the rank's node; besides s(n), B(n)\n",
                             model.self_traffic->describe(), fmt::join(model.self_traffic->seen_at, ", "));
  if (model.size_mix_of_rest) {
    std::vector<std::string> own;
    if (model.grid)
      own.push_back("grid's classes");
    if (model.collectives)
      own.push_back("collectives");
    if (model.self_traffic)
      own.push_back("messages to itself");
    out += fmt::format("  message sizes         the {} at their own sizes, {} size classes beside them; "
                             "SMPI's factors taken per size\n",
                             fmt::join(own, " and the "), model.size_mix.size());
  }
  else if (!model.size_mix.empty())
    out += fmt::format("  message sizes         {} classes; SMPI's factors taken per class\n", model.size_mix.size());
  if (model.hot_receive)
    out += fmt::format("  busiest receiver      {} of the bytes ({}), at least 1/n\n",
                             model.hot_receive->describe(), curve_form_name(model.hot_receive->form));
  if (model.hot_send)
    out += fmt::format("  ... which sends       {} of the bytes ({}), {} of the messages\n",
                             model.hot_send->describe(), curve_form_name(model.hot_send->form),
                             model.hot_send_messages ? model.hot_send_messages->describe() : std::string("1/n"));
  out += fmt::format("  Amdahl baseline       T(n) = {:.6g} + {:.6g} / n\n", amdahl.serial_s, amdahl.parallel_s);
  if (!model.curves_cross_validated)
    out += "  note: fewer than 3 process counts: s(n) and m(n) take the paper's forms, not cross-validated\n";
  out += fmt::format("\n{:>6} {:>12} {:>12} {:>9}  {}\n", "procs", "measured_s", "fitted_s", "error_%", "run");
  for (std::size_t i = 0; i < runs.size(); ++i)
    out += fmt::format("{:>6} {:>12.6g} {:>12.6g} {:>9.2f}  {}\n", runs[i].procs, runs[i].time_s,
                             runs[i].time_s * (1 + model.residuals[i]), 100 * model.residuals[i], runs[i].source);
  const Reliability& rel = model.reliability;
  if (rel.queueing_error >= 0)
    out += fmt::format("\nheld-out runs ({}): queueing model off by {:.1f}%, Amdahl by {:.1f}%: {}\n",
                             rel.method, 100 * rel.queueing_error, 100 * rel.amdahl_error,
                             rel.trusted ? "trusted" : "not trusted");
  return out;
}

} // namespace perfcast
