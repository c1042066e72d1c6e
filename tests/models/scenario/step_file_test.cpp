// File: tests/models/scenario/step_file_test.cpp
// `/step` and fault files read into the workloads and faults they describe, each mistake one
// error at its JSON pointer; timed faults change a link's capacity exactly in their windows.
#include "models/scenario/step_file.hpp"

#include "tests/input_error_text.hpp"

#include "models/hardware/node_presets.hpp"
#include "models/scenario/scenario_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace railsim::models::scenario {
namespace {

SystemSpec h100(int nodes) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = nodes;
  return spec;
}

StepWorkload step_of(const std::string& text, int nodes = 2) {
  const JsonDocument document = parse_json(text, "w.json");
  return read_step(document.root(), h100(nodes));
}

std::string error_of(const std::string& text, int nodes = 2) {
  return test::input_error_text([&] { step_of(text, nodes); });
}

StepFaults faults_of(const std::string& text) {
  const JsonDocument document = parse_json(text, "f.json");
  return read_step_faults(document.root(), h100(2));
}

std::string fault_error(const std::string& text) {
  return test::input_error_text([&] { faults_of(text); });
}

sim::Duration compute_of(const Phase& phase) { return std::get<ComputeTask>(phase.task).duration; }

TEST(StepFile, DpGeneratorCutsTheGradientsIntoBuckets) {
  // 1 GiB in 100 MiB buckets: 10 full ones and one of 24 MiB; forward, 11 backward slices,
  // 11 AllReduces, optimizer: 24 phases.
  const StepWorkload step = step_of(R"({"generator": "dp", "gradient_bytes": "1G",
      "bucket": "100M", "forward": "20ms", "backward": "40ms", "optimizer": "2ms"})");
  ASSERT_EQ(step.phases.size(), 24U);
  EXPECT_EQ(step.ranks(), 16);
  EXPECT_EQ(step.phases[0].name, "forward");
  EXPECT_EQ(step.phases[11].name, "backward.10");
  const auto& last = std::get<CollectiveTask>(step.phases[22].task);
  EXPECT_EQ(last.request.size.count, 24LL << 20);
  // A bucket's backward slice is its share of the 40 ms: 100/1024 of it, 24/1024 for the last.
  EXPECT_EQ(compute_of(step.phases[1]), sim::ms(40.0 * 100.0 / 1024.0));
  EXPECT_EQ(compute_of(step.phases[11]), sim::ms(40.0 * 24.0 / 1024.0));
  // With overlap, AllReduce K waits for backward slice K.
  EXPECT_EQ(step.phases[12].after, std::vector<int>{1});
}

TEST(StepFile, DpFromParametersAndFlops) {
  // 1e9 bf16 parameters: 2e9 bytes of gradients; 3e15 FLOPs at 500 TFLOP/s: 6 s, split 1:2.
  const StepWorkload step = step_of(R"({"generator": "dp", "parameters": 1e9,
      "bucket": "1G", "flops": 3e15, "achieved_tflops": 500, "overlap": false})");
  EXPECT_EQ(compute_of(step.phases[0]), sim::seconds(2.0));
  sim::Duration backward{};
  std::int64_t bytes = 0;
  for (const Phase& phase : step.phases) {
    if (phase.name.rfind("backward", 0) == 0) {
      backward += compute_of(phase);
    }
    if (const auto* c = std::get_if<CollectiveTask>(&phase.task)) {
      bytes += c->request.size.count;
      // Without overlap every AllReduce waits for the last backward slice.
      EXPECT_EQ(phase.after, std::vector<int>{2});
    }
  }
  EXPECT_NEAR(sim::to_seconds(backward), 4.0, 1e-9);
  EXPECT_EQ(bytes, 2'000'000'000);
}

// Issue 26: one-byte buckets (1.4e10 of them) or 1e15 parameters in 25 MiB buckets (7.6e7) were
// built before anything was checked, until memory ran out. Now the estimate is refused at the
// value that sets the count: the bucket when the gradients would fit in 25 MiB buckets, the
// gradients otherwise.
TEST(StepFile, AStepBeyondTheMemoryLimitIsRefusedBeforeItIsBuilt) {
  const std::string one_byte_buckets = error_of(
      R"({"generator": "dp", "gradient_bytes": "14G", "bucket": "1", "forward": "1ms",
          "backward": "2ms"})");
  EXPECT_NE(one_byte_buckets.find("w.json: /bucket: this step would create 1.5e+10 "
                                  "gradient buckets (about "),
            std::string::npos)
      << one_byte_buckets;
  EXPECT_NE(one_byte_buckets.find("; the limit, --max-memory, is 8 GiB)"), std::string::npos);
  const std::string huge_model =
      error_of(R"({"generator": "dp", "parameters": 1e15, "forward": "1ms", "backward": "2ms"})");
  EXPECT_NE(huge_model.find("w.json: /parameters: this step would create 7.6e+07 gradient buckets"),
            std::string::npos)
      << huge_model;
  EXPECT_NE(error_of(R"({"generator": "3d", "layers": 4, "hidden": 8, "sequence": 8,
                         "microbatches": 1000000000, "achieved_tflops": 1})")
                .find("w.json: /microbatches: this step would create 6e+09 phases"),
            std::string::npos);
}

TEST(StepFile, TheMemoryLimitIsTheCallers) {
  const JsonDocument document = parse_json(
      R"({"generator": "dp", "gradient_bytes": "1G", "bucket": "1M", "forward": "1ms",
          "backward": "2ms"})",
      "w.json");
  // 1024 buckets over 16 ranks: 2048 phases of 1.5 KB + 16 x 240 B, about 11 MB.
  EXPECT_THROW(read_step(document.root(), h100(2), WorkLimit{std::int64_t{8} << 20}),
               ScenarioError);
  EXPECT_EQ(read_step(document.root(), h100(2), WorkLimit{std::int64_t{16} << 20}).phases.size(),
            2U * 1024 + 1);
}

TEST(StepFile, PhasesWrittenOutWithTheirCommunicators) {
  const StepWorkload step = step_of(R"({"nodes": 2, "gpus_per_node": 8,
      "communicators": [{"name": "tp", "groups": "per_node"}, {"name": "dp", "groups": "per_gpu"}],
      "phases": [
        {"name": "fwd", "compute": "1ms"},
        {"name": "tp.ar", "collective": "all_reduce", "size": "16M", "communicator": "tp",
         "after": ["fwd"], "nccl": {"algo": "ring"}},
        {"name": "bwd", "compute": {"flops": 2e12, "achieved_tflops": 1000}, "after": ["tp.ar"]},
        {"name": "dp.ar", "collective": "all_reduce", "size": "64M", "communicator": "dp",
         "after": ["bwd"]}]})");
  ASSERT_EQ(step.communicators.size(), 2U);
  EXPECT_EQ(step.communicators[0].groups.size(), 2U);  // one per node
  EXPECT_EQ(step.communicators[1].groups.size(), 8U);  // one per GPU index
  EXPECT_EQ(step.communicators[1].groups[3].system_gpu(0), 3);
  EXPECT_EQ(step.communicators[1].groups[3].nodes, 2);
  EXPECT_EQ(compute_of(step.phases[2]), sim::ms(2));
  EXPECT_EQ(step.phases[3].after, std::vector<int>{2});
}

TEST(StepFile, APlacedJobUsesItsOwnNodes) {
  const StepWorkload step = step_of(R"({"first_node": 4, "nodes": 2,
      "communicators": [{"name": "x", "groups": [{"nodes": [1], "gpus": [0, 1]},
                                                 {"nodes": [0], "gpus": [0, 1]}]}],
      "gpus_per_node": 2, "phases": [{"name": "a", "collective": "all_gather", "size": "1M",
      "communicator": "x"}]})",
                                    8);
  EXPECT_EQ(step.nodes, (std::vector<int>{4, 5}));
  EXPECT_EQ(step.communicators[0].groups[0].system_node(0), 5);
}

TEST(StepFile, MistakesAreErrorsAtTheirPointer) {
  EXPECT_EQ(error_of(R"({"phases": [{"name": "a", "compute": "1ms", "after": ["b"]}]})"),
            "w.json: /phases/0/after/0: no phase named \"b\" written before this");
  EXPECT_EQ(
      error_of(R"({"phases": [{"name": "a", "compute": "1ms", "collective": "all_reduce"}]})"),
      "w.json: /phases/0: expected one of \"compute\" (a duration), \"collective\" (such "
      "as \"all_reduce\") or \"send\" (a size)");
  EXPECT_EQ(error_of(R"({"phases": [{"name": "a", "collective": "all_reduce", "size": "1M",
      "communicator": "dp"}]})"),
            "w.json: /phases/0/communicator: no communicator named \"dp\" written before this");
  EXPECT_EQ(
      error_of(R"({"communicators": [{"name": "x", "groups": [{"gpus": [0]}, {"gpus": [1, 0]}]}],
      "phases": []})"),
      "w.json: /: communicator x: rank 0 (node 0 GPU 0) is in two of its groups, expected "
      "at most one");
  EXPECT_EQ(error_of(R"({"nodes": 3, "phases": []})"),
            "w.json: /nodes: expected an integer from 1 to 2, got 3");
  EXPECT_EQ(error_of(R"({"generator": "dp", "forward": "1ms", "backward": "2ms"})"),
            "w.json: /: expected one of \"gradient_bytes\" (such as \"14G\") or \"parameters\"");
  EXPECT_EQ(error_of(R"({"generator": "dp", "gradient_bytes": "1G"})"),
            "w.json: /: expected \"forward\" and \"backward\" durations, or \"flops\" and "
            "\"achieved_tflops\"");
  EXPECT_EQ(error_of(R"({"generator": "pp"})"),
            "w.json: /generator: expected one of \"dp\", \"3d\", \"moe\", got \"pp\" (did you mean "
            "\"dp\"?)");
}

TEST(StepFile, SendsComputeOnSomeRanksAndRepeatedCalls) {
  // Node 1's GPU 0 sends to node 0's; the compute before it runs on the sender only.
  const StepWorkload step = step_of(R"({"gpus_per_node": 1,
      "communicators": [{"name": "pp", "groups": [{"nodes": [1, 0]}]},
                        {"name": "all", "groups": "world"}],
      "phases": [{"name": "fwd", "compute": "1ms", "ranks": [1]},
                 {"name": "act", "send": "16M", "communicator": "pp", "after": ["fwd"]},
                 {"name": "tp", "collective": "all_reduce", "size": "1M",
                  "communicator": "all", "calls": 6}]})");
  ASSERT_EQ(step.phases.size(), 3U);
  EXPECT_EQ(step.phases[0].ranks, (std::vector<int>{1}));
  const auto& send = std::get<SendTask>(step.phases[1].task);
  EXPECT_EQ(send.size.count, 16LL << 20);
  EXPECT_EQ(step.communicators[0].groups[0].node_ids, (std::vector<int>{1, 0}));
  EXPECT_EQ(std::get<CollectiveTask>(step.phases[2].task).calls, 6);
}

TEST(StepFile, ThreeDGeneratorReadsTheModelsShape) {
  // 4 nodes, tp 8, pp 2, so dp 2: phases per stage and micro-batch fwd, fwd_tp, bwd, bwd_tp,
  // one send each way per micro-batch, then per stage its dp AllReduce and optimizer.
  const StepWorkload step = step_of(R"({"generator": "3d", "tp": 8, "pp": 2, "layers": 4,
      "hidden": 1024, "sequence": 2048, "microbatches": 3, "precision": "fp32",
      "gradient_precision": "bf16", "achieved_tflops": 200, "optimizer": "1ms"})",
                                    4);
  EXPECT_EQ(step.phases.size(), std::size_t{2 * 3 * 4 + 2 * 3 + 2 * 2});
  const auto send = std::find_if(step.phases.begin(), step.phases.end(),
                                 [](const Phase& p) { return p.name == "send_fwd.0.2"; });
  ASSERT_NE(send, step.phases.end());
  EXPECT_EQ(std::get<SendTask>(send->task).size.count, 2048LL * 1024 * 4);  // fp32
  const auto dp = std::find_if(step.phases.begin(), step.phases.end(),
                               [](const Phase& p) { return p.name == "dp_allreduce.0"; });
  ASSERT_NE(dp, step.phases.end());
  EXPECT_EQ(std::get<CollectiveTask>(dp->task).request.size.count,
            12LL * 4 * 1024 * 1024 / 16 * 2);  // bf16 gradients over tp x pp = 16 shards
}

TEST(StepFile, PipelineMistakesAreErrorsAtTheirPointer) {
  EXPECT_EQ(error_of(R"({"generator": "3d", "tp": 3, "layers": 4, "hidden": 8, "sequence": 8,
      "achieved_tflops": 1})"),
            "w.json: /tp: tp 3 must divide gpus_per_node 8: a tensor-parallel group stays in one "
            "node's NVLink domain");
  EXPECT_EQ(error_of(R"({"generator": "3d", "layers": 4, "hidden": 8, "achieved_tflops": 1})"),
            "w.json: /: missing key \"sequence\"");
  EXPECT_EQ(error_of(R"({"communicators": [{"name": "x", "groups": "world"}],
      "phases": [{"name": "a", "send": "1M", "communicator": "x"}]})"),
            "w.json: /: phase a: a send's communicator x needs groups of two ranks (sender, "
            "receiver), not 16");
  EXPECT_EQ(error_of(R"({"phases": [{"name": "a", "compute": "1ms", "ranks": [0, 0]}]})"),
            "w.json: /phases/0/ranks/1: rank 0 is listed twice");
  EXPECT_EQ(error_of(R"({"phases": [{"name": "a", "compute": "1ms", "calls": 2}]})"),
            "w.json: /phases/0/calls: only a \"collective\" or \"send\" phase takes this");
}

TEST(StepFile, MoeGeneratorReadsTheExperts) {
  // 2 nodes, ep 16, 2 layers of which 1 dense, one micro-batch: the dense layer's fwd and bwd,
  // the MoE layer's 4 forward and 4 backward phases (tp 1: no tensor-parallel calls), the dp
  // AllReduce and the optimizer.
  const StepWorkload step = step_of(R"({"generator": "moe", "layers": 2, "hidden": 1024,
      "sequence": 1024, "achieved_tflops": 100, "optimizer": "1ms",
      "moe": {"experts": 32, "top_k": 2, "ep": 16, "expert_hidden": 512, "dense_layers": 1,
              "skew": 0.5, "seed": 3}})");
  EXPECT_EQ(step.phases.size(), std::size_t{2 + 8 + 2});
  const auto dispatch = std::find_if(step.phases.begin(), step.phases.end(),
                                     [](const Phase& p) { return p.name == "dispatch.0.0.1"; });
  ASSERT_NE(dispatch, step.phases.end());
  EXPECT_EQ(std::get<CollectiveTask>(dispatch->task).request.peer_bytes->size(), 256U);
}

TEST(StepFile, MoeMistakesAreErrorsAtTheirPointer) {
  const std::string shape = R"("generator": "moe", "layers": 2, "hidden": 8, "sequence": 8,
      "achieved_tflops": 1, )";
  EXPECT_EQ(error_of("{" + shape + R"("moe": {"experts": 8, "top_k": 2, "ep": 3,
      "expert_hidden": 8}})"),
            "w.json: /moe/ep: ep 3 must divide a pipeline stage's 16 ranks and the 8 experts");
  EXPECT_EQ(error_of("{" + shape + R"("moe": {"experts": 8, "top_k": 9, "ep": 8,
      "expert_hidden": 8}})"),
            "w.json: /moe/top_k: expected an integer from 1 to 8, got 9");
  EXPECT_EQ(error_of("{" + shape + R"("moe": {"experts": 8, "top_k": 2, "ep": 8,
      "expert_hidden": 8, "skew": -1}})"),
            "w.json: /moe/skew: expected a number >= 0, got -1");
  EXPECT_EQ(error_of("{" + shape + R"("parameters": 1e9, "moe": {"experts": 8, "top_k": 2,
      "ep": 8, "expert_hidden": 8}})"),
            "w.json: /parameters: an MoE model's parameters are counted from its shape: leave "
            "\"parameters\" out");
  EXPECT_EQ(error_of(R"({"generator": "moe", "layers": 2, "hidden": 8, "sequence": 8,
      "achieved_tflops": 1})"),
            "w.json: /: missing key \"moe\"");
}

TEST(StepFaults, ReadsEveryKind) {
  const StepFaults f = faults_of(R"([
      {"link": "n1.mlx5_0>leaf0", "rate_scale": 0.5},
      {"link": "leaf0>spine1.1", "rate_scale": 0.25, "from": "2ms", "for": "1ms", "every": "5ms",
       "times": 3},
      {"gpu": "n1.gpu7", "compute_scale": 1.3},
      {"gdr_off_node": 1},
      {"pcie": "n0.gpu3", "generation": 4, "lanes": 8},
      {"pcie": "n1.mlx5_9", "parent": "hb0"}])");
  ASSERT_EQ(f.links.size(), 4U);  // the PCIe element's two directions
  EXPECT_FALSE(f.links[0].schedule.has_value());
  ASSERT_TRUE(f.links[1].schedule.has_value());
  EXPECT_EQ(f.links[1].schedule->from, sim::ms(2));
  EXPECT_EQ(*f.links[1].schedule->every, sim::ms(5));
  EXPECT_EQ(f.links[1].schedule->times, 3);
  ASSERT_EQ(f.stragglers.size(), 1U);
  EXPECT_EQ(f.stragglers[0].node, 1);
  EXPECT_EQ(f.stragglers[0].gpu, 7);
  EXPECT_EQ(f.gdr_off_nodes, std::vector<int>{1});
  ASSERT_EQ(f.moved.size(), 1U);
  EXPECT_EQ(f.moved[0].node, 1);
  EXPECT_EQ(f.moved[0].element, "mlx5_9");
  EXPECT_EQ(f.moved[0].parent, (PcieParent{PcieParent::Kind::kHostBridge, 0}));
}

TEST(StepFaults, MistakesAreErrorsAtTheirPointer) {
  EXPECT_EQ(fault_error(R"([{"gpu": "n1.gpu8", "compute_scale": 2}])"),
            "f.json: /0/gpu: expected a GPU such as \"n1.gpu0\" (gpu0 to gpu7)");
  EXPECT_EQ(
      fault_error(R"([{"gpu": "n2.gpu0", "compute_scale": 2}])"),
      "f.json: /0/gpu: expected an element such as \"n0.gpu3\" (node 0 to 1), got \"n2.gpu0\"");
  EXPECT_EQ(fault_error(R"([{"link": "x", "down": true, "from": "1ms"}])"),
            "f.json: /0/down: a link cannot go down mid-run; give a timed fault a \"rate_scale\" "
            "or \"rate\"");
  EXPECT_EQ(fault_error(R"([{"link": "x", "rate_scale": 0.5, "every": "1ms", "times": 2}])"),
            "f.json: /0/every: a repeating fault needs \"for\": how long each window lasts");
  EXPECT_EQ(fault_error(R"([{"link": "x", "rate_scale": 0.5, "for": "2ms", "every": "1ms",
      "times": 2}])"),
            "f.json: /0/every: expected a period longer than \"for\"");
  EXPECT_EQ(fault_error(R"([{"pcie": "n1.mlx5_9", "parent": "hb8"}])"),
            "f.json: /0/parent: no host bridge hb8 (the node has hb0 to hb7)");
  EXPECT_EQ(fault_error(R"([{"pcie": "n1.sw2", "parent": "hb0"}])"),
            "f.json: /0/pcie: node 1 of dgx-h100 has no GPU or NIC 'sw2' (expected gpuN or a NIC "
            "such as mlx5_0)");
  EXPECT_EQ(fault_error(R"([{"pcie": "n1.mlx5_9", "parent": "hb0", "lanes": 8}])"),
            "f.json: /0/lanes: unknown key \"lanes\"; expected one of \"pcie\", \"parent\"");
}

TEST(StepFaults, TimedFaultsHoldInTheirWindowsOnly) {
  // rate_scale 0.25 from 2 ms for 1 ms, every 5 ms, 3 times: windows [2, 3), [7, 8), [12, 13) ms.
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(h100(2), network);
  const StepFaults f = faults_of(R"([{"link": "leaf0>spine1.1", "rate_scale": 0.25,
      "from": "2ms", "for": "1ms", "every": "5ms", "times": 3}])");
  schedule_faults("f.json", f.links, network, simulator);
  const sim::LinkId link = fault_link("f.json", f.links[0], network);
  const double full = network.link(link).capacity.bytes_per_s;
  for (const double t : {1.0, 2.5, 3.5, 7.5, 9.0, 12.5, 13.5, 17.5}) {
    simulator.run_until(sim::at(sim::us(t * 1000.0)));
    const bool in_window = (t > 2 && t < 3) || (t > 7 && t < 8) || (t > 12 && t < 13);
    EXPECT_DOUBLE_EQ(network.link(link).capacity.bytes_per_s, in_window ? full / 4.0 : full)
        << "at " << t << " ms";
  }
}

}  // namespace
}  // namespace railsim::models::scenario

namespace railsim::models::scenario {
namespace {

TEST(StepFile, JobsNeedNodesOfTheirOwn) {
  const auto read = [](const std::string& text) {
    const JsonDocument document = parse_json(text, "j.json");
    return read_jobs(document.root(), h100(4));
  };
  const std::vector<StepWorkload> jobs = read(R"([
      {"nodes": [0, 2], "phases": [{"name": "a", "compute": "1ms"}]},
      {"nodes": [1, 3], "phases": [{"name": "a", "compute": "1ms"}]}])");
  ASSERT_EQ(jobs.size(), 2U);
  EXPECT_EQ(jobs[1].nodes, (std::vector<int>{1, 3}));
  try {
    read(R"([{"nodes": 2, "phases": []}, {"first_node": 1, "nodes": 2, "phases": []}])");
    FAIL() << "expected an error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(),
                 "j.json: /1: this job and job 0 both run on node 1: give each job nodes of its "
                 "own (\"first_node\", \"nodes\")");
  }
  EXPECT_THROW(read(R"([{"nodes": [0, 0], "phases": []}])"), ScenarioError);
}

}  // namespace
}  // namespace railsim::models::scenario
