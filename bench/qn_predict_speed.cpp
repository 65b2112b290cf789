// Predicts 10,000 configurations with a queueing model: process counts up to
// 1,024 on up to 64 heterogeneous nodes (the target: under one second). Prints
// the wall time, the configurations per second and how many used exact MVA.
#include "qn/QueueingModel.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace perfcast;

int main()
{
  // 64 nodes of four kinds, 1 Gbit/s Ethernet
  Platform p;
  int backbone = p.add_link({"backbone", 1.25e9, 1e-6, SharingPolicy::Shared});
  const double speeds[4] = {9.6e9, 9.6e9, 16.8e9, 12e9};
  const int cores[4] = {8, 12, 16, 24};
  for (int i = 0; i < 64; ++i) {
    int h = p.add_host({"node-" + std::to_string(i), speeds[i % 4], cores[i % 4]});
    int up = p.add_link({"node-" + std::to_string(i) + "_UP", 1.25e8, 50e-6, SharingPolicy::Shared});
    int down = p.add_link({"node-" + std::to_string(i) + "_DOWN", 1.25e8, 50e-6, SharingPolicy::Shared});
    p.set_star_links(h, {up, backbone}, {backbone, down});
  }
  QueueingModel m;
  m.sends = {CurveForm::LogLinear, 200, 50};
  m.message_bytes = {CurveForm::Power, 5e5, -0.5};
  m.v_comp = 0.85;
  m.v_comm = 0.15;
  m.work_flops = 1e13;
  m.net_constant = 1.3;
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> nodes_dist(1, 64), procs_dist(1, 1024);
  const int configurations = std::getenv("CONFIGS") ? std::atoi(std::getenv("CONFIGS")) : 10000;
  int exact = 0;
  double checksum = 0;
  auto start = std::chrono::steady_clock::now();
  for (int c = 0; c < configurations; ++c) {
    int nodes = nodes_dist(rng), procs = procs_dist(rng);
    HostCounts placement;
    for (int r = 0; r < procs; ++r)
      ++placement[r % nodes];
    Prediction pr = predict_run_time(m, p, placement);
    exact += pr.exact;
    checksum += pr.time_s;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d configurations (up to 1024 processes on up to 64 nodes) in %.3f s: %.0f per second; "
              "%d solved by exact MVA, %d approximate (checksum %.6g)\n",
              configurations, secs, configurations / secs, exact, configurations - exact, checksum);
  std::printf("target: under 1 s -> %s\n", secs < 1.0 ? "met" : "missed");
  return 0;
}
