// The figures of perfcast comm run: the bytes-against-processes chart and
// the communication-matrix heatmap are well-formed SVG and carry the numbers
// of the estimates they draw.
#include "CommTestUtil.hpp"
#include "comm/CommEstimate.hpp"
#include "comm/CommSvg.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pugixml.hpp>

namespace perfcast::test {
namespace {

pugi::xml_node parse_svg(pugi::xml_document& doc, const std::string& text)
{
  pugi::xml_parse_result ok = doc.load_string(text.c_str());
  EXPECT_TRUE(ok) << ok.description();
  EXPECT_STREQ(doc.document_element().name(), "svg");
  return doc.document_element();
}

TEST(CommSvg, MatrixHeatmapHasOneCellPerCommunicatingPairWithItsBytes)
{
  // a 12 x 12 stencil over 3 steps in 2 and 4 parts
  comm::ValueGraph g = stencil_value_graph(12, 3);
  std::vector<comm::CommEstimate> estimates = comm::estimate_for_procs(g, {2, 4});
  const comm::CommEstimate& e = estimates[1];
  pugi::xml_document doc;
  pugi::xml_node svg = parse_svg(doc, comm::comm_matrix_svg(e, "stencil <test> & co"));
  // one titled cell per non-zero entry, its title the entry per iteration
  std::vector<std::string> expected;
  for (std::size_t i = 0; i < e.matrix.size(); ++i)
    for (std::size_t j = 0; j < e.matrix.size(); ++j)
      if (e.matrix[i][j])
        expected.push_back(fmt::format("{} to {}: {:.1f} bytes", i, j, static_cast<double>(e.matrix[i][j]) / 3.0));
  std::vector<std::string> titles;
  for (pugi::xml_node rect : svg.children("rect"))
    if (rect.child("title"))
      titles.push_back(rect.child("title").text().get());
  ASSERT_FALSE(expected.empty()); // four parts of a grid always exchange halos
  EXPECT_EQ(titles, expected);
  // the subtitle is escaped, not markup
  bool subtitle = false;
  for (pugi::xml_node text : svg.children("text"))
    subtitle |= std::string(text.text().get()) == "stencil <test> & co";
  EXPECT_TRUE(subtitle);
}

TEST(CommSvg, BytesChartHasALinePerKindAndATickPerProcessCount)
{
  comm::ValueGraph g = stencil_value_graph(12, 3, true);
  std::vector<comm::CommEstimate> estimates = comm::estimate_for_procs(g, {2, 4, 8});
  pugi::xml_document doc;
  pugi::xml_node svg = parse_svg(doc, comm::comm_bytes_svg(estimates, "stencil"));
  std::string text;
  for (pugi::xpath_node n : svg.select_nodes("//text"))
    text += std::string(n.node().text().get()) + "|";
  for (const char* label : {"|total|", "|point-to-point|", "|collective|", "|2|", "|4|", "|8|", "processes"})
    EXPECT_NE(text.find(label), std::string::npos) << label << " in " << text;
  EXPECT_EQ(svg.select_nodes("//path[@stroke-width='2']").size(), 3u); // the three series
}

} // namespace
} // namespace perfcast::test
