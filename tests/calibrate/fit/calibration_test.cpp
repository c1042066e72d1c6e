// File: tests/calibrate/fit/calibration_test.cpp
// Calibration end to end: parameters recovered from data the model made with known values, a
// profile that survives its own JSON, and the held-out validation of docs/validation.md on real
// nccl-tests logs: fitted on some node counts of a hardware family, judged on the others.
#include "calibrate/fit/calibration.hpp"

#include "tests/sanitizers.hpp"

#include "calibrate/fit/cabling_fit.hpp"
#include "calibrate/fit/measurements.hpp"
#include "calibrate/fit/profile.hpp"
#include "calibrate/parse/nccl_tests.hpp"
#include "calibrate/parse/perftest.hpp"
#include "calibrate/parse/text_input.hpp"
#include "models/collective/collective_run.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/scenario/scenario_error.hpp"
#include "sim/flow_network.hpp"
#include "sim/input_error.hpp"
#include "sim/median.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace railsim::calibrate::fit {

using parse::TextInput;

namespace {

CalibratedModel preset_model(const char* preset) {
  CalibratedModel model;
  model.system.node = models::node_preset(preset);
  model.system.nodes = 2;
  return model;
}

Measurement rdma(MeasurementKind kind, std::int64_t size) {
  Measurement m;
  m.kind = kind;
  m.source = fmt::format("synthetic:{}", size);
  m.size_bytes = size;
  m.iterations = 1000;
  return m;
}

// Rows the model itself predicts under `truth`: a fit from the defaults must find `truth` again.
MeasurementSet made_by(const CalibratedModel& truth, std::vector<Measurement> rows) {
  MeasurementSet set;
  for (Measurement& m : rows) {
    m.measured = predict(truth, m);
    set.rows.push_back(m);
  }
  return set;
}

TEST(Calibration, LatencyRowsRecoverBothNicLatenciesByLinearLeastSquares) {
  // Sizes 2 B to 32 KiB: the first four fit inline (220 B), the others pay the DMA read too,
  // so the rows separate the two latencies.
  CalibratedModel truth = preset_model("dgx-h100");
  find_model_parameter("nic_processing_latency_us")->set(truth, 1.5);
  find_model_parameter("nic_dma_read_latency_us")->set(truth, 0.4);
  std::vector<Measurement> rows;
  for (std::int64_t s = 2; s <= 32768; s *= 4) {
    rows.push_back(rdma(MeasurementKind::kRdmaLatency, s));
  }
  const MeasurementSet set = made_by(truth, rows);
  const CalibratedModel start = preset_model("dgx-h100");
  const Calibration c = calibrate(start, set, default_parameters(start, set));
  ASSERT_EQ(c.parameters.size(), 2U);
  EXPECT_EQ(c.parameters[0].parameter->name, "nic_processing_latency_us");
  EXPECT_EQ(c.parameters[1].parameter->name, "nic_dma_read_latency_us");
  EXPECT_TRUE(c.linear);
  EXPECT_TRUE(c.converged) << c.message;
  EXPECT_DOUBLE_EQ(c.parameters[0].initial, 0.632);  // the defaults (node_spec.hpp)
  EXPECT_DOUBLE_EQ(c.parameters[1].initial, 0.91);
  // Times are whole picoseconds, so the recovered values are within a picosecond or so.
  EXPECT_NEAR(c.parameters[0].value, 1.5, 2e-6);
  EXPECT_NEAR(c.parameters[1].value, 0.4, 4e-6);
  for (const RowCheck& r : c.rows) {
    EXPECT_NEAR(r.error, 0.0, 1e-6) << r.measurement.source;
  }
}

TEST(Calibration, StreamRowsRecoverMessageRateAndNicEfficiencyByLevenbergMarquardt) {
  // The NIC port is the bottleneck once its efficiency drops below PCIe's share (49.15 of
  // 49.3 GB/s on dgx-h100), so 0.9 makes it the one large messages see.
  CalibratedModel truth = preset_model("dgx-h100");
  find_model_parameter("nic_message_rate_Mps")->set(truth, 4.0);
  find_model_parameter("nic_efficiency")->set(truth, 0.9);
  std::vector<Measurement> rows;
  for (std::int64_t s = 64; s <= (std::int64_t{8} << 20); s *= 2) {
    rows.push_back(rdma(MeasurementKind::kRdmaBandwidth, s));
  }
  const MeasurementSet set = made_by(truth, rows);
  CalibratedModel start = preset_model("dgx-h100");
  find_model_parameter("nic_efficiency")->set(start, 0.8);  // bound by the NIC from the start
  const Calibration c = calibrate(
      start, set,
      {find_model_parameter("nic_efficiency"), find_model_parameter("nic_message_rate_Mps")});
  ASSERT_TRUE(c.converged) << c.message;
  EXPECT_FALSE(c.linear);
  EXPECT_NEAR(c.parameters[0].value, 0.9, 1e-4);
  EXPECT_NEAR(c.parameters[1].value, 4.0, 1e-3);
}

TEST(Calibration, ProfileSurvivesItsJsonAndAppliesOnlyWhatWasFitted) {
  CalibratedModel truth = preset_model("dgx-h100");
  find_model_parameter("nic_processing_latency_us")->set(truth, 1.1);
  std::vector<Measurement> rows;
  for (std::int64_t s = 2; s <= 4096; s *= 8) {
    rows.push_back(rdma(MeasurementKind::kRdmaLatency, s));
  }
  const MeasurementSet set = made_by(truth, rows);
  const Calibration c = calibrate(preset_model("dgx-h100"), set,
                                  {find_model_parameter("nic_processing_latency_us"),
                                   find_model_parameter("nvlink_efficiency")});
  const Profile made =
      make_profile(c, "dgx-h100", "dgx-h100", {{"a.txt", "perftest", content_hash("abc")}});
  // FNV-1a 64 of "abc", from the algorithm's published test vectors.
  EXPECT_EQ(made.inputs[0].hash, "e71fa2190541574b");
  const std::string path = ::testing::TempDir() + "/railsim_profile_test.json";
  {
    std::ofstream out(path);
    out << profile_json(made);
  }
  const Profile read = read_profile(path);
  EXPECT_EQ(read.node, "dgx-h100");
  ASSERT_EQ(read.parameters.size(), 2U);
  EXPECT_EQ(read.parameters[0].status, VariableStatus::kFitted);
  EXPECT_EQ(read.parameters[1].status, VariableStatus::kNotInformed);
  EXPECT_DOUBLE_EQ(read.parameters[0].value, made.parameters[0].value);
  EXPECT_DOUBLE_EQ(read.parameters[0].sigma, made.parameters[0].sigma);
  EXPECT_TRUE(read.range.rdma);
  EXPECT_EQ(read.range.min_rdma_size_bytes, 2);
  EXPECT_EQ(read.range.max_rdma_size_bytes, 1024);  // 2, 16, 128, 1024

  CalibratedModel applied = preset_model("dgx-h100");
  find_model_parameter("nvlink_efficiency")->set(applied, 0.5);
  apply_profile(read, applied);
  EXPECT_NEAR(find_model_parameter("nic_processing_latency_us")->get(applied), 1.1, 2e-6);
  EXPECT_DOUBLE_EQ(applied.system.node.nvlink.efficiency, 0.5);  // not informed: left alone
  std::remove(path.c_str());
}

// A fit that chose a cabling other than the design's (cabling_fit.hpp) writes it into the
// profile, which lays it on the system it is applied to; one the fabric cannot take is refused.
TEST(Calibration, ProfileCarriesTheCablingItsFitFound) {
  Calibration c;
  c.model = preset_model("dgx-h100");
  c.model.system.fabric.rails = models::RailMapping::kTopOfRack;
  c.cablings = {{models::RailMapping::kAligned, 0.2, -10.0},
                {models::RailMapping::kTopOfRack, 0.01, -50.0}};
  const std::string path = ::testing::TempDir() + "/railsim_cabled_profile.json";
  {
    std::ofstream out(path);
    out << profile_json(make_profile(c, "dgx-h100", "dgx-h100", {}));
  }
  const Profile read = read_profile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(read.rails.has_value());
  EXPECT_EQ(*read.rails, models::RailMapping::kTopOfRack);
  CalibratedModel applied = preset_model("dgx-h100");
  apply_profile(read, applied);
  EXPECT_EQ(applied.system.fabric.rails, models::RailMapping::kTopOfRack);

  CalibratedModel two_planes = preset_model("dgx-h100");
  two_planes.system.fabric.planes = 2;
  EXPECT_THROW(apply_profile(read, two_planes), sim::InputError);

  // The design's own cabling is not written: the profile then leaves any system's alone.
  c.model.system.fabric.rails = models::RailMapping::kAligned;
  EXPECT_FALSE(make_profile(c, "dgx-h100", "dgx-h100", {}).rails.has_value());
}

TEST(Calibration, DamagedProfileNamesThePlace) {
  const std::string path = ::testing::TempDir() + "/railsim_bad_profile.json";
  {
    std::ofstream out(path);
    out << R"({"format": "railsim calibration profile", "version": 1, "system": "x",
      "parameters": [{"name": "nvlink_eficiency", "unit": "fraction", "value": 0.8,
                      "sigma": 0.01, "status": "fitted", "default": 0.82}],
      "covariance": {"parameters": [], "matrix": []}, "fit": {}, "inputs": [], "range": {},
      "residuals": []})";
  }
  try {
    (void)read_profile(path);
    FAIL() << "expected an error";
  } catch (const models::scenario::ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("/parameters/0/name"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown parameter \"nvlink_eficiency\""),
              std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

// The p4d log's INFO lines as a job over TCP and without GPUDirect RDMA would print them: each is
// a note citing its line (34, the first "Using network"; 151, the first NET connection).
TEST(CalibrationInputs, InfoLinesOfTcpOrNoGdrAreNotedWithTheirLine) {
  const std::string path = std::string(RAILSIM_TEST_DATA_DIR) +
                           "/nccl-tests_allreduce_a100-p4d-efa_2x8_aws-efa-eks-tagged-debug.txt";
  std::string text = TextInput::from_file(path).text();
  const auto replace_all = [&text](const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      text.replace(at, from.size(), to);
      at += to.size();
    }
  };
  // The log names no collective (old nccl-tests): its one note says so, its rows are not used.
  MeasurementSet healthy;
  add_nccl_tests(parse::parse_nccl_tests(TextInput("p4d.txt", text)), "p4d.txt",
                 preset_model("dgx-a100").system, healthy);
  ASSERT_EQ(healthy.notes.size(), 1U);
  EXPECT_EQ(healthy.notes[0].rfind("p4d.txt:11: a run not used: the log does not name its", 0), 0U);
  replace_all("/GDRDMA", "");
  replace_all("Using network AWS Libfabric", "Using network Socket");
  MeasurementSet set;
  add_nccl_tests(parse::parse_nccl_tests(TextInput("p4d.txt", text)), "p4d.txt",
                 preset_model("dgx-a100").system, set);
  ASSERT_EQ(set.notes.size(), 3U);
  EXPECT_EQ(set.notes[0].rfind("p4d.txt:34: NCCL used TCP sockets between nodes", 0), 0U);
  EXPECT_EQ(set.notes[1].rfind("p4d.txt:151: NCCL reached the network without GPUDirect RDMA", 0),
            0U);
}

// A run's NCCL variables reach its predictions: the cluster01 1 x 8 log with an export pasted
// above it forcing the ring predicts what the ring runs, not NCCL's NVLS on its NVSwitch; the
// variable the model has no counterpart for is noted at each run.
TEST(CalibrationInputs, ARunsNcclVariablesReachItsPredictions) {
  const std::string path =
      std::string(RAILSIM_TEST_DATA_DIR) + "/nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01.txt";
  const std::string text =
      "export NCCL_ALGO=Ring NCCL_BUFFSIZE=8388608\n" + TextInput::from_file(path).text();
  const CalibratedModel model = preset_model("dgx-h100");
  MeasurementSet set;
  add_nccl_tests(parse::parse_nccl_tests(TextInput("ring.txt", text)), "ring.txt", model.system,
                 set);
  const auto row = std::find_if(set.rows.begin(), set.rows.end(), [](const Measurement& m) {
    return m.op == models::CollectiveOp::kAllReduce && m.size_bytes == (std::int64_t{1} << 30);
  });
  ASSERT_NE(row, set.rows.end());
  EXPECT_EQ(row->nccl_environment, (std::vector<models::NcclVariable>{
                                       {"NCCL_ALGO", "Ring"}, {"NCCL_BUFFSIZE", "8388608"}}));
  const std::size_t buffsize_notes =
      static_cast<std::size_t>(std::count_if(set.notes.begin(), set.notes.end(), [](const auto& n) {
        return n.find("NCCL_BUFFSIZE=8388608: not modelled") != std::string::npos;
      }));
  EXPECT_EQ(buffsize_notes, parse::parse_nccl_tests(TextInput("ring.txt", text)).runs.size());

  Measurement ring = *row;
  Measurement nccl_choice = *row;
  nccl_choice.nccl_environment.clear();
  // The same row through a request forcing the ring directly (as `collective --algo ring`).
  models::SystemSpec spec = model.system;
  spec.nodes = 1;
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  models::System system(spec, network);
  models::CollectiveRequest request;
  request.op = models::CollectiveOp::kAllReduce;
  request.size = sim::bytes(row->size_bytes);
  request.comm = {1, 8, {}, {}};
  request.algorithm = models::Algorithm::kRing;
  request.execution = models::Execution::kPipelined;
  const double ring_us =
      sim::to_us(models::run_collective(system, network, simulator, request).time);
  EXPECT_DOUBLE_EQ(predict(model, ring), ring_us);
  // NVLS reduces in the NVSwitch: each GPU sends its buffer once, where the ring sends it twice.
  EXPECT_LT(predict(model, nccl_choice), 0.8 * ring_us);
}

// ---- held-out validation on real logs -----------------------------------------------------

MeasurementSet logs(const std::vector<std::string>& stems) {
  MeasurementSet set;
  for (const std::string& stem : stems) {
    const std::string path = std::string(RAILSIM_TEST_DATA_DIR) + "/" + stem + ".txt";
    add_nccl_tests(parse::parse_nccl_tests(TextInput::from_file(path)), stem,
                   preset_model("dgx-h100").system, set);
  }
  return set;
}

double median_abs(std::vector<double> v) {
  for (double& x : v) {
    x = std::abs(x);
  }
  return sim::median(std::move(v));
}

struct Split {
  std::vector<double> large;  // >= 64 MiB
  std::vector<double> small;
};

Split split(const std::vector<RowCheck>& rows) {
  Split s;
  for (const RowCheck& r : rows) {
    (r.measurement.size_bytes >= (std::int64_t{64} << 20) ? s.large : s.small).push_back(r.error);
  }
  return s;
}

// H100 SXM nodes of xxrjun's cluster01 (tests/data/README.md): fitted on one node of 8 GPUs and
// ten nodes of one GPU, judged on one node of 4, ten of 2, another node of 8 and two of 1.
TEST(Calibration, HeldOutNodeCountsOfTheH100FamilyMeetTheValidationTargets) {
  if (railsim::test::kUnderSanitizers) {
    GTEST_SKIP() << "a hundred model runs per fit: checked in the optimised build";
  }
  const MeasurementSet fit_set = logs({"nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01",
                                       "nccl-tests_5ops_h100_10node-1gpn_xxrjun-cluster01"});
  const MeasurementSet held_out =
      logs({"nccl-tests_5ops_h100_1node-4gpu_xxrjun-cluster01",
            "nccl-tests_5ops_h100_10node-2gpn_xxrjun-cluster01",
            "nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01-node007",
            "nccl-tests_allreduce+sendrecv_h100_2node-1gpn_xxrjun-cluster01-smoke"});
  const CalibratedModel start = preset_model("dgx-h100");
  // As railsim calibrate fits: under the other cablings the rows could tell apart too, of which
  // the design's stands (one GPU a node loads one NIC, on whatever leaf).
  const Calibration c = calibrate_cabling(start, fit_set, [&](const CalibratedModel& under) {
    return default_parameters(under, fit_set);
  });
  ASSERT_TRUE(c.converged) << c.message;
  EXPECT_EQ(c.model.system.fabric.rails, models::RailMapping::kAligned);
  const Split before = split(check_rows(start, held_out));
  const Split after = split(check_rows(c.model, held_out));
  fmt::print(
      "held out: >= 64 MiB {:.1f}% -> {:.1f}% ({} rows), below {:.1f}% -> {:.1f}% ({} rows)\n",
      100 * median_abs(before.large), 100 * median_abs(after.large), after.large.size(),
      100 * median_abs(before.small), 100 * median_abs(after.small), after.small.size());
  EXPECT_LE(median_abs(after.large), 0.05);
  EXPECT_LE(median_abs(after.small), 0.20);
  // Calibration must help where the defaults are off, not merely stay within the targets.
  EXPECT_LT(median_abs(after.large), median_abs(before.large));
}

// cluster01's 10 x 1 log. Its AllToAll, 18 channels on each NIC, is bound by the GPU-NIC path
// (49.15 GB/s in the preset) and moved 44.66-44.81 at 2 GiB and more: a stream share of 0.910.
// Its SendRecv runs 2 p2p channels per peer (p2p_test.cpp) and moved 24.86-24.88 GB/s at 1 GiB
// and more: 12.44 each, at that share of a channel rate of 12.44 / 0.910 = 13.67 GB/s. The two
// p2p parameters, fitted to those rows alone, find both.
TEST(Calibration, PointToPointRowsFitTheChannelRateAndTheStreamShare) {
  MeasurementSet set = logs({"nccl-tests_5ops_h100_10node-1gpn_xxrjun-cluster01"});
  std::erase_if(set.rows, [](const Measurement& m) {
    return !models::is_point_to_point(m.op) || m.size_bytes < (std::int64_t{1} << 30);
  });
  // SendRecv's 1 to 16 GiB, AllToAll's 2 to 16 (its "1 GiB" is 64 bytes short: 10 ranks).
  ASSERT_EQ(set.rows.size(), 9U);
  const Calibration c = calibrate(
      preset_model("dgx-h100"), set,
      {find_model_parameter("p2p_channel_GBps"), find_model_parameter("p2p_net_efficiency")});
  ASSERT_TRUE(c.converged) << c.message;
  EXPECT_NEAR(c.parameters[0].value, 13.67, 0.02 * 13.67);
  EXPECT_NEAR(c.parameters[1].value, 0.910, 0.02 * 0.910);
}

// The CX-6 HDR perftest sweeps (tests/data), fitted on sizes up to 64 KiB and judged on the
// larger ones. All of them are below 64 MiB, so the target is 20%. The fit does not help the
// held-out rows (docs/validation.md says why): the test holds the target and reports both.
TEST(Calibration, HeldOutLargeMessagesOfTheCx6PerftestSweepsStayWithinTheTarget) {
  MeasurementSet all;
  const std::string path = std::string(RAILSIM_TEST_DATA_DIR) +
                           "/perftest_write-bw-sweep+write-lat-sweep_cx6-hdr_2node_node0-node1.txt";
  add_perftest(parse::parse_perftest(TextInput::from_file(path)), "cx6", all);
  MeasurementSet fit_set;
  MeasurementSet held_out;
  for (const Measurement& m : all.rows) {
    (m.size_bytes <= 65536 ? fit_set : held_out).rows.push_back(m);
  }
  ASSERT_EQ(fit_set.rows.size(), 32U);  // 16 sizes 2 B..64 KiB, each a stream and a ping-pong
  ASSERT_EQ(held_out.rows.size(), 14U);
  const CalibratedModel start = preset_model("dgx-a100");
  const Calibration c = calibrate(start, fit_set, default_parameters(start, fit_set));
  ASSERT_TRUE(c.converged) << c.message;
  const double before = median_abs(split(check_rows(start, held_out)).small);
  const double after = median_abs(split(check_rows(c.model, held_out)).small);
  fmt::print("held out (> 64 KiB): {:.1f}% -> {:.1f}%\n", 100 * before, 100 * after);
  EXPECT_LE(after, 0.20);
}

}  // namespace
}  // namespace railsim::calibrate::fit
