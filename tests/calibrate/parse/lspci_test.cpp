// File: tests/calibrate/parse/lspci_test.cpp
// The lspci -vv parser on text laid out as lspci prints it (no real dump is among the project's
// fixtures): functions with and without a domain, lspci -nn's class codes, the "(ok)" and
// "(downgraded)" notes newer releases add, a link that is down, and a dump taken without root,
// whose capabilities read "<access denied>". Every value below is read off the text.
#include "calibrate/parse/lspci.hpp"

#include "calibrate/parse/tool_output.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::calibrate::parse {
namespace {

constexpr const char* kDump =
    "$ sudo lspci -vv\n"
    "0000:1b:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
    "\tSubsystem: Mellanox Technologies Device 0023\n"
    "\tNUMA node: 0\n"
    "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
    "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
    "\t\t\tClockPM- Surprise- LLActRep- BwNot- ASPMOptComp+\n"
    "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+\n"
    "\t\tLnkSta:\tSpeed 16GT/s (downgraded), Width x16 (ok)\n"
    "\t\tLnkCap2: Supported Link Speeds: 2.5-32GT/s, Crosslink- Retimer+ 2Retimers+ DRS-\n"
    "\n"
    "18:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)\n"
    "\tNUMA node: 1\n"
    "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <1us\n"
    "\t\tLnkSta:\tSpeed 32GT/s, Width x8\n"
    "\n"
    "2a:00.1 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]\n"
    "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n"
    "\t\tLnkSta:\tSpeed unknown (downgraded), Width x0 (downgraded)\n"
    "\n"
    "3c:00.0 Non-Volatile memory controller: Samsung Electronics Co Ltd NVMe SSD Controller\n"
    "\tCapabilities: <access denied>\n";

TEST(Lspci, ReadsFunctionsTheirNumaNodesAndLinks) {
  const LspciOutput output = parse_lspci(TextInput("lspci.txt", kDump));
  ASSERT_EQ(output.functions.size(), 4U);
  const LspciFunction& nic = output.functions[0];
  EXPECT_EQ(nic.address, "0000:1b:00.0");
  EXPECT_EQ(nic.class_name, "Infiniband controller");
  EXPECT_EQ(nic.description, "Mellanox Technologies MT2910 Family [ConnectX-7]");
  EXPECT_EQ(nic.numa_node, 0);
  EXPECT_EQ(nic.line, 2);
  ASSERT_TRUE(nic.capable && nic.trained);
  EXPECT_DOUBLE_EQ(nic.capable->speed_gts, 32.0);
  EXPECT_EQ(nic.capable->width, 16);
  EXPECT_DOUBLE_EQ(nic.trained->speed_gts, 16.0);
  EXPECT_EQ(nic.trained->width, 16);
  EXPECT_EQ(nic.trained->line, 9);

  const LspciFunction& gpu = output.functions[1];
  EXPECT_EQ(gpu.address, "0000:18:00.0");  // the domain lspci leaves out
  EXPECT_EQ(gpu.class_name, "3D controller");
  EXPECT_EQ(gpu.description, "NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)");
  EXPECT_EQ(gpu.numa_node, 1);
  ASSERT_TRUE(gpu.trained);
  EXPECT_EQ(gpu.trained->width, 8);

  const LspciFunction& down = output.functions[2];
  EXPECT_EQ(down.address, "0000:2a:00.1");
  ASSERT_TRUE(down.trained);
  EXPECT_DOUBLE_EQ(down.trained->speed_gts, 0.0);
  EXPECT_EQ(down.trained->width, 0);

  const LspciFunction& denied = output.functions[3];
  EXPECT_FALSE(denied.numa_node.has_value());
  EXPECT_FALSE(denied.capable.has_value());
  EXPECT_FALSE(denied.trained.has_value());
}

TEST(Lspci, IsRecognisedAmongTheFormats) {
  EXPECT_EQ(detect_format(TextInput("lspci.txt", kDump)), ToolFormat::kLspci);
  EXPECT_EQ(tool_format_named("lspci"), ToolFormat::kLspci);
}

// The message of the ParseError `text` raises, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_lspci(TextInput("lspci.txt", text));
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(Lspci, DamagedDumpsFailAtTheirLine) {
  const std::string head = "1b:00.0 Infiniband controller: Mellanox Technologies MT2910\n";
  EXPECT_EQ(error_of(head + "\t\tLnkSta:\tSpeed fast, Width x16\n"),
            "lspci.txt:2: expected a link speed such as 16GT/s, got 'fast'");
  EXPECT_EQ(error_of(head + "\t\tLnkSta:\tSpeed 16GT/s\n"),
            "lspci.txt:2: expected the link's 'Speed ...GT/s' and 'Width x...'");
  EXPECT_EQ(error_of(head + "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width 16\n"),
            "lspci.txt:2: expected a link width such as x16, got '16'");
  EXPECT_EQ(error_of(head + "\tNUMA node: minus one\n"),
            "lspci.txt:2: expected a NUMA node, got 'minus one'");
  EXPECT_EQ(error_of(head + "Capabilities: [60] Express\n"),
            "lspci.txt:2: expected a PCI function such as '1b:00.0 Infiniband controller: ...' "
            "or one of its indented lines, got 'Capabilities: [60] Express'");
  EXPECT_EQ(error_of("1b:00.0 Infiniband controller\n"),
            "lspci.txt:1: expected 'Class: description' after the address, got 'Infiniband "
            "controller'");
  EXPECT_EQ(error_of(head + head),
            "lspci.txt:2: PCI function 0000:1b:00.0 is listed twice (first at line 1)");
  EXPECT_EQ(error_of("$ lspci -vv\n"),
            "lspci.txt: expected lspci output (a line such as '1b:00.0 Infiniband controller: "
            "...'), found none");
}

}  // namespace
}  // namespace railsim::calibrate::parse
