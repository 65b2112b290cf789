#include "core/Error.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "TestUtil.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

std::vector<std::string> link_names(const Platform& p, const Route& r)
{
  std::vector<std::string> names;
  for (int l : r.links)
    names.push_back(p.links()[static_cast<std::size_t>(l)].name);
  return names;
}

const char* kCluster = R"(<?xml version='1.0'?>
<platform version="4.1">
  <cluster id="c" prefix="n" suffix=".x" radical="0-3" speed="1Gf" core="2" bw="125MBps" lat="50us"
           bb_bw="1GBps" bb_lat="1us"/>
</platform>)";

} // namespace

TEST(PlatformXml, ClusterRoutesCrossUpBackboneDown)
{
  Platform p = parse_simgrid_platform(kCluster, "c.xml");
  ASSERT_EQ(p.hosts().size(), 4u);
  EXPECT_EQ(p.hosts()[2].name, "n2.x");
  EXPECT_EQ(p.hosts()[2].cores, 2);
  EXPECT_DOUBLE_EQ(p.hosts()[2].speed_flops, 1e9);
  Route r = p.route(0, 3);
  EXPECT_EQ(link_names(p, r), (std::vector<std::string>{"c_link_0_UP", "c_backbone", "c_link_3_DOWN"}));
  // 50us + 1us + 50us
  EXPECT_NEAR(r.latency_s, 101e-6, 1e-12);
}

TEST(PlatformXml, SameHostWithoutLoopbackUsesItsUpAndDownLinks)
{
  Platform p = parse_simgrid_platform(kCluster, "c.xml");
  EXPECT_EQ(link_names(p, p.route(1, 1)), (std::vector<std::string>{"c_link_1_UP", "c_backbone", "c_link_1_DOWN"}));
}

TEST(PlatformXml, ClusterZoneWithHostLinksAndLoopback)
{
  const char* xml = R"(<platform version="4.1"><zone id="z" routing="Cluster">
    <host id="a" speed="2Gf" core="8"/><host id="b" speed="1Gf"/>
    <link id="la" bandwidth="1Gbps" latency="10us" sharing_policy="SPLITDUPLEX"/>
    <link id="lb" bandwidth="1Gbps" latency="10us" sharing_policy="SPLITDUPLEX"/>
    <link id="lo" bandwidth="10GBps" latency="0us" sharing_policy="FATPIPE"/>
    <backbone id="bb" bandwidth="10Gbps" latency="2us"/>
    <host_link id="a" up="la_UP" down="la_DOWN"/><host_link id="b" up="lb_UP" down="lb_DOWN"/>
    <route src="a" dst="a"><link_ctn id="lo"/></route>
  </zone></platform>)";
  Platform p = parse_simgrid_platform(xml, "z.xml");
  EXPECT_EQ(link_names(p, p.route(0, 1)), (std::vector<std::string>{"la_UP", "bb", "lb_DOWN"}));
  EXPECT_EQ(link_names(p, p.route(0, 0)), (std::vector<std::string>{"lo"}));
  EXPECT_EQ(p.links()[static_cast<std::size_t>(p.find_link("lo"))].sharing, SharingPolicy::Fatpipe);
}

TEST(PlatformXml, FullZoneExplicitSymmetricRoutes)
{
  const char* xml = R"(<platform version="4.1"><zone id="z" routing="Full">
    <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
    <link id="l1" bandwidth="1GBps" latency="1ms"/><link id="l2" bandwidth="2GBps" latency="2ms"/>
    <route src="a" dst="b"><link_ctn id="l1"/><link_ctn id="l2"/></route>
  </zone></platform>)";
  Platform p = parse_simgrid_platform(xml, "f.xml");
  EXPECT_EQ(link_names(p, p.route(0, 1)), (std::vector<std::string>{"l1", "l2"}));
  EXPECT_EQ(link_names(p, p.route(1, 0)), (std::vector<std::string>{"l2", "l1"}));
  EXPECT_NEAR(p.route(1, 0).latency_s, 3e-3, 1e-15);
  EXPECT_FALSE(p.has_route(0, 0));
}

TEST(PlatformXml, ErrorsNameFileLineAndExpectation)
{
  const char* xml = "<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"n\" radical=\"0-3\" speed=\"fast\" bw=\"1Gbps\"/>\n</platform>";
  try {
    parse_simgrid_platform(xml, "bad.xml");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("bad.xml:2:"), std::string::npos) << m;
    EXPECT_NE(m.find("speed=\"fast\""), std::string::npos) << m;
  }
  EXPECT_THROW(parse_simgrid_platform("<platform><zone id='z' routing='Full'>", "t.xml"), Error);
  EXPECT_THROW(parse_simgrid_platform("<platform version='4.1'><zone id='z' routing='Full'><host id='a' speed='1Gf'/>"
                                      "<route src='a' dst='q'/></zone></platform>",
                                      "r.xml"),
               Error);
}

TEST(PlatformJson, MixedNodeKindsMakeOneCluster)
{
  Platform p = load_platform(test::source_dir() + "/examples/platforms/hetero8.json");
  ASSERT_EQ(p.hosts().size(), 8u);
  EXPECT_EQ(p.hosts()[0].name, "e5620-0");
  EXPECT_EQ(p.hosts()[6].name, "e52450-0");
  EXPECT_EQ(p.hosts()[6].cores, 16);
  EXPECT_DOUBLE_EQ(p.hosts()[6].speed_flops, 16.8e9);
  Route r = p.route(0, 7);
  ASSERT_EQ(r.links.size(), 3u);
  EXPECT_NEAR(r.latency_s, 101e-6, 1e-12);
}

TEST(PlatformJson, XmlAndJsonDescribeTheSameMachine)
{
  Platform x = load_platform(test::source_dir() + "/examples/platforms/hetero8.xml");
  Platform j = load_platform(test::source_dir() + "/examples/platforms/hetero8.json");
  ASSERT_EQ(x.hosts().size(), j.hosts().size());
  for (std::size_t h = 0; h < x.hosts().size(); ++h) {
    EXPECT_EQ(x.hosts()[h].name, j.hosts()[h].name);
    EXPECT_EQ(x.hosts()[h].cores, j.hosts()[h].cores);
    EXPECT_DOUBLE_EQ(x.hosts()[h].speed_flops, j.hosts()[h].speed_flops);
  }
  EXPECT_NEAR(x.route(2, 5).latency_s, j.route(2, 5).latency_s, 1e-15);
}

TEST(PlatformJson, BadFieldsAreNamed)
{
  EXPECT_THROW(parse_json_platform("{\"format\":\"perfcast-platform\",\"version\":1}", "p.json"), Error);
  try {
    parse_json_platform(R"({"format":"perfcast-platform","version":1,"clusters":[{"name":"c","bandwidth":"1Gbps",
      "nodes":[{"prefix":"n","count":2,"speed":"quick"}]}]})",
                        "p.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("clusters[0].nodes[0].speed"), std::string::npos) << e.what();
  }
  try {
    parse_json_platform("{\n\"format\": \"perfcast-platform\",\n\"version\": 1,,\n}", "syntax.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("syntax.json:3:"), std::string::npos) << e.what();
  }
}

TEST(Placement, HostfileCyclesAndExpandsCounts)
{
  Platform p = parse_simgrid_platform(kCluster, "c.xml");
  test::TempDir dir;
  std::string hf = dir.file("hosts", "n1.x\n# comment\nn3.x:2\n");
  Placement pl = place_by_hostfile(p, hf, 7);
  EXPECT_EQ(pl, (Placement{1, 3, 3, 1, 3, 3, 1}));
  std::string bad = dir.file("bad", "n1.x\nnowhere\n");
  try {
    place_by_hostfile(p, bad, 2);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(":2: host 'nowhere' is not in the platform"), std::string::npos) << e.what();
  }
}

TEST(Placement, NamedPolicies)
{
  Platform p = parse_simgrid_platform(kCluster, "c.xml");
  EXPECT_EQ(place_by_policy(p, "round-robin", 6), (Placement{0, 1, 2, 3, 0, 1}));
  // two cores per host
  EXPECT_EQ(place_by_policy(p, "block", 6), (Placement{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(place_by_policy(p, "n2.x,n0.x:2", 4), (Placement{2, 0, 0, 2}));
  EXPECT_THROW(place_by_policy(p, "n9.x", 2), Error);
}

TEST(PlatformJson, fuzz_out_of_range_number_is_a_clear_error)
{
  // found by tests/fuzz: a number beyond double range escaped as an uncaught exception
  EXPECT_THROW(parse_json_platform("{\"format\":\"perfcast-platform\",\"version\":1e999}", "big.json"), Error);
  EXPECT_THROW(parse_json_platform("{\"format\":7,\"version\":1}", "type.json"), Error);
}

TEST(PlatformJson, NodesByNameAndNumberingFromZero)
{
  // what broke: "first": 0, as docs/formats.md shows it, was refused; and a
  // traced machine's name (no number) could not be a cluster node
  Platform p = parse_json_platform(R"({"format":"perfcast-platform","version":1,"clusters":[{"name":"c",
    "bandwidth":"1Gbps","latency":"10us","loopback":{"bandwidth":"10GBps","latency":"1us"},
    "nodes":[{"prefix":"n","count":2,"first":0,"speed":"1Gf"},{"names":["vm","login"],"speed":"2Gf","cores":4}]}]})",
                                   "p.json");
  ASSERT_EQ(p.hosts().size(), 4u);
  EXPECT_EQ(p.hosts()[0].name, "n0");
  EXPECT_EQ(p.hosts()[1].name, "n1");
  EXPECT_EQ(p.find_host("vm"), 2);
  EXPECT_EQ(p.hosts()[3].cores, 4);
  try {
    parse_json_platform(R"({"format":"perfcast-platform","version":1,"clusters":[{"name":"c","bandwidth":"1Gbps",
      "nodes":[{"names":["a", 3],"speed":"1Gf"}]}]})",
                        "p.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("clusters[0].nodes[0].names[1]: expected a non-empty string"),
              std::string::npos)
        << e.what();
  }
}

TEST(PlatformXml, HugeCoreCountIsAnErrorNotUndefinedBehaviour)
{
  // found by the fuzzer (UBSan): core="4.67e69" was converted to int before the check
  try {
    parse_simgrid_platform(R"(<?xml version='1.0'?><platform version="4.1">
      <cluster id="c" prefix="n" radical="0-1" speed="1Gf" core="4666666666666666666666666666666666666666666666666666666666666666666666" bw="1Gbps" lat="1us"/></platform>)",
                       "huge.xml");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("huge.xml:2: <cluster> attribute core="), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected a whole number from 1 to 1000000"), std::string::npos) << e.what();
  }
}

TEST(Placement, HugeHostCountIsAnErrorNotUndefinedBehaviour)
{
  // found by the fuzzer (UBSan): "HOST:16666666666" was converted to int before the check
  Platform p = parse_simgrid_platform(kCluster, "c.xml");
  try {
    place_by_policy(p, "n0.x:16666666666", 4);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("with a count from 1 to 1048576"), std::string::npos) << e.what();
  }
}
