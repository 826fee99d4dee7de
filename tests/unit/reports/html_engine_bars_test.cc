#include "gpuroof/reports/html_engine_bars.h"

#include <gtest/gtest.h>

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;

std::vector<DeviceLoad> Load(const Trace& trace, std::optional<int64_t> units) {
  EngineLoadOptions options;
  if (units) {
    options.units.kind = UnitsSpec::Kind::kFixed;
    options.units.count = *units;
  }
  return ComputeEngineLoad(trace, options);
}

// Trace A: kernel [0,4000), H2D [0,2000), D2H [2000,3000); processing window [0,4000); 2 units
//   -> kernel 2 us/unit, H2D 1 us/unit, D2H 0.5 us/unit.
// Trace B: kernel [0,2000), H2D [0,500); window [0,2000); 2 units -> 1 and 0.25 us/unit.
// The tallest bar of all (A's kernel, 2 us) spans the 240 px plot, so by hand:
//   A: heights 240, 120, 60; B: heights 120, 30. The plot's baseline is at y = 40 + 240 = 280.
class EngineBarsTest : public ::testing::Test {
 protected:
  Trace a_ = MakeTrace({{Engine::kKernel, 0, 4000},
                        {Engine::kH2D, 0, 2000, 0, 2, 64},
                        {Engine::kD2H, 2000, 3000, 0, 3, 64}});
  Trace b_ = MakeTrace({{Engine::kKernel, 0, 2000}, {Engine::kH2D, 0, 500, 0, 2, 64}});
};

TEST_F(EngineBarsTest, BarHeightsAreProportionalToBusyPerUnitOnOneScale) {
  std::vector<DeviceLoad> a = Load(a_, 2);
  std::vector<DeviceLoad> b = Load(b_, 2);
  EngineBarsLayout layout = LayoutEngineBars({{"#1 · device 0", &a[0]}, {"#2 · device 0", &b[0]}});
  EXPECT_TRUE(layout.per_unit);
  EXPECT_EQ(layout.axis_label, "busy per frame");
  EXPECT_DOUBLE_EQ(layout.max_value, 2.0);
  EXPECT_DOUBLE_EQ(layout.plot_bottom, 280.0);
  ASSERT_EQ(layout.groups.size(), 2u);

  const BarGroupGeometry& ga = layout.groups[0];
  ASSERT_EQ(ga.bars.size(), 3u);
  EXPECT_EQ(ga.bars[0].engine, Engine::kKernel);
  EXPECT_DOUBLE_EQ(ga.bars[0].height, 240.0);
  EXPECT_DOUBLE_EQ(ga.bars[1].height, 120.0);
  EXPECT_DOUBLE_EQ(ga.bars[2].height, 60.0);
  EXPECT_DOUBLE_EQ(ga.bars[1].y, 160.0);
  EXPECT_TRUE(ga.bars[0].bottleneck);
  EXPECT_FALSE(ga.bars[1].bottleneck);
  // The roofline sits on the top of the tallest bar.
  ASSERT_TRUE(ga.roofline_y.has_value());
  EXPECT_DOUBLE_EQ(*ga.roofline_y, 40.0);
  EXPECT_EQ(ga.roofline_label, "2.000 us");
  EXPECT_EQ(ga.bars[0].value_label, "2.000 us");
  EXPECT_EQ(ga.bars[0].headroom_label, "");
  EXPECT_EQ(ga.bars[1].headroom_label, "+1.000 us");  // 2 - 1 us/unit
  EXPECT_EQ(ga.bars[2].headroom_label, "+1.500 us");  // 2 - 0.5 us/unit

  const BarGroupGeometry& gb = layout.groups[1];
  ASSERT_EQ(gb.bars.size(), 2u);
  EXPECT_DOUBLE_EQ(gb.bars[0].height, 120.0);
  EXPECT_DOUBLE_EQ(gb.bars[1].height, 30.0);
  EXPECT_DOUBLE_EQ(*gb.roofline_y, 160.0);
  EXPECT_EQ(gb.bars[1].headroom_label, "+750 ns");
  // Side by side: B starts right of A.
  EXPECT_GT(gb.x, ga.x + ga.width);
  EXPECT_GT(gb.bars[0].x, ga.bars[2].x + ga.bars[2].width);
}

TEST_F(EngineBarsTest, WithoutUnitsOnEveryDeviceBarsShowBusyTimeInTheWindow) {
  std::vector<DeviceLoad> a = Load(a_, 2);
  std::vector<DeviceLoad> b = Load(b_, std::nullopt);
  EngineBarsLayout layout = LayoutEngineBars({{"a", &a[0]}, {"b", &b[0]}});
  EXPECT_FALSE(layout.per_unit);
  EXPECT_EQ(layout.axis_label, "busy in the window");
  EXPECT_DOUBLE_EQ(layout.max_value, 0.004);                 // A's kernel: 4000 ns in ms
  EXPECT_DOUBLE_EQ(layout.groups[0].bars[2].height, 60.0);   // D2H 1000 of 4000 ns
  EXPECT_DOUBLE_EQ(layout.groups[1].bars[0].height, 120.0);  // B's kernel 2000 ns
  EXPECT_EQ(layout.groups[0].bars[0].value_label, "4.000 us");
}

TEST_F(EngineBarsTest, SvgCarriesTheGeometry) {
  std::vector<DeviceLoad> a = Load(a_, 2);
  std::string svg = RenderEngineBarsSvg(LayoutEngineBars({{"device 0", &a[0]}}));
  // Group at x 76. Each bar's slot is as wide as its widest label: "bottleneck", 10 characters
  // at 6.6 px = 66 px. Slots start at 76 + 12 = 88, 166, 244 (66 wide, 12 apart) and centre
  // their 56-px bars at 93, 171, 249; the group is 12 + 3 x 78 + 76 = 322 wide, so the roofline
  // runs from 76 to 398 at the kernel bar's top.
  EXPECT_NE(svg.find("<rect x=\"93\" y=\"40\" width=\"56\" height=\"240\" "
                     "class=\"bar e-kernel bottleneck\">"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<rect x=\"171\" y=\"160\" width=\"56\" height=\"120\" class=\"bar e-H2D\">"),
            std::string::npos);
  EXPECT_NE(svg.find("<rect x=\"249\" y=\"220\" width=\"56\" height=\"60\" class=\"bar e-D2H\">"),
            std::string::npos);
  EXPECT_NE(svg.find("<line x1=\"76\" y1=\"40\" x2=\"398\" y2=\"40\" class=\"roofline\"/>"),
            std::string::npos);
  EXPECT_NE(svg.find(">+1.000 us</text>"), std::string::npos);
}

TEST(EngineBars, DeviceWhoseOpsTakeNoTimeHasNoRoofline) {
  // Two zero-length kernels: a 40 ns processing window with ops in it, but no busy time.
  Trace trace = MakeTrace({{Engine::kKernel, 10, 10}, {Engine::kKernel, 50, 50}});
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, {});
  EngineBarsLayout layout = LayoutEngineBars({{"d", &loads[0]}});
  ASSERT_EQ(layout.groups[0].bars.size(), 1u);
  EXPECT_DOUBLE_EQ(layout.groups[0].bars[0].height, 0.0);
  EXPECT_FALSE(layout.groups[0].roofline_y.has_value());
  EXPECT_NE(RenderEngineBarsSvg(layout).find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace gpuroof
