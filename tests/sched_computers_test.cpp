// Computers made from a platform (sched::computers_from_platform): the network
// interface each host's messages leave by.
#include "platform/Platform.hpp"
#include "sched/ProcessSim.hpp"
#include "sched/Workload.hpp"

#include <gtest/gtest.h>

using namespace perfcast;
using namespace perfcast::sched;

TEST(SchedComputers, InterfaceIsEachHostsPrivateLinkNotTheBackbone)
{
  // a cluster whose nodes have their own kind of link: a message leaves by the
  // node's private up link (1 Gbit/s = 125e6 B/s, or 10 Gbit/s = 1.25e9 B/s),
  // never by the 100 Gbit/s backbone
  const char* json = R"({"format": "perfcast-platform", "version": 1, "clusters": [{
    "name": "c", "bandwidth": "1Gbps", "latency": "50us",
    "backbone": {"bandwidth": "100Gbps", "latency": "1us"},
    "nodes": [{"prefix": "slow-", "count": 2, "speed": "1Gf", "cores": 2},
              {"prefix": "fast-", "count": 1, "speed": "1Gf", "cores": 2, "bandwidth": "10Gbps"}]}]})";
  Platform p = parse_json_platform(json, "c.json");
  auto computers = computers_from_platform(p);
  ASSERT_EQ(computers.size(), 3u);
  EXPECT_DOUBLE_EQ(computers[0].network_bytes_per_s, 125e6);
  EXPECT_DOUBLE_EQ(computers[1].network_bytes_per_s, 125e6);
  EXPECT_DOUBLE_EQ(computers[2].network_bytes_per_s, 1.25e9);
}

TEST(SchedComputers, LoneHostUsesItsLoopback)
{
  // a probed machine is one host: its messages stay on the loopback (8 GB/s)
  const char* json = R"({"format": "perfcast-platform", "version": 1, "clusters": [{
    "name": "m", "bandwidth": "1Gbps", "latency": "50us",
    "loopback": {"bandwidth": "8GBps", "latency": "1us"},
    "nodes": [{"names": ["vm"], "speed": "1Gf", "cores": 2}]}]})";
  Platform p = parse_json_platform(json, "m.json");
  auto computers = computers_from_platform(p);
  ASSERT_EQ(computers.size(), 1u);
  EXPECT_DOUBLE_EQ(computers[0].network_bytes_per_s, 8e9);
}

TEST(SchedComputers, MessageStageCostsItsBytesOverTheInterface)
{
  // one process sends 1.25e6 bytes from a node whose private link carries
  // 125e6 B/s, with no message overhead or latency described: 0.01 s
  const char* json = R"({"format": "perfcast-platform", "version": 1, "clusters": [{
    "name": "c", "bandwidth": "1Gbps", "latency": "50us",
    "nodes": [{"prefix": "n", "count": 2, "speed": "1Gf", "cores": 1}]}]})";
  auto computers = computers_from_platform(parse_json_platform(json, "c.json"));
  auto policy = make_policy("round-robin");
  Rng rng(1);
  auto r = simulate_processes(computers, {{0, 0, 0, {{StageKind::Message, 1.25e6}}}}, *policy, rng);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NEAR(r[0].response_s(), 0.01, 1e-12);
}
