#include <gtest/gtest.h>

#include <fstream>

#include "bwacct/catalog.h"
#include "bwacct/error.h"

using namespace bwacct;

namespace {

Catalog shipped() { return Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test"); }

const char* kMinimal = R"({"schema": "bwacct.gpus/1", "gpus": {"mine": {
  "name": "My GPU",
  "hbm_bw_GBps": {"value": 1000, "source": "my measurement"},
  "tensor_tflops": {"bf16": {"value": 100, "sparsity": "dense", "source": "datasheet p.3"}},
  "launch_overhead_us": {"value": 3, "source": "assumed"}}}})";

std::string replace(std::string s, const std::string& from, const std::string& to) {
    return s.replace(s.find(from), from.size(), to);
}

}  // namespace

TEST(Catalog, ShipsTheRequiredGpus) {
    const Catalog c = shipped();
    for (const char* id : {"h100-sxm", "h100-pcie", "h100-nvl", "h200", "h200-nvl", "b200", "b300", "gb200", "gb300",
                           "a100-sxm-80gb", "a100-sxm-40gb", "a10", "a10g", "l40s", "l40", "l4", "rtx-4090", "rtx-5090",
                           "rtx-pro-6000-blackwell", "mi250x", "mi300x", "mi300a", "mi325x", "mi355x",
                           // Issue 15, "every GPU a user may own": the older and export parts real logs name.
                           "a100-pcie-40gb", "a100-pcie-80gb", "a800-sxm4-80gb", "a800-pcie-80gb", "h800", "h800-pcie", "h20",
                           "gh200", "gh200-144gb", "v100-sxm2-16gb", "v100-sxm2-32gb", "v100-pcie-16gb", "v100-pcie-32gb", "t4",
                           "a30", "a40", "rtx-a6000", "rtx-6000-ada", "rtx-3090", "mi210", "mi250", "mi100"})
        EXPECT_NO_THROW(c.get(id, "--gpu")) << id;
    EXPECT_EQ(c.gpus().size(), 46u);  // 24 + 22
}

TEST(Catalog, HeadlineFiguresAndConventions) {
    const Catalog c = shipped();
    // Dense peaks (datasheets print 1,979 "with sparsity" for H100/H200 bf16: half is dense).
    EXPECT_DOUBLE_EQ(c.get("h100-sxm", "t").peak(Unit::tensor, "bf16")->value, 989.4);
    EXPECT_DOUBLE_EQ(c.get("h200", "t").peak(Unit::tensor, "bf16")->value, 989.4);
    EXPECT_DOUBLE_EQ(c.get("b200", "t").peak(Unit::tensor, "bf16")->value, 2250);
    EXPECT_DOUBLE_EQ(c.get("h100-sxm", "t").hbm_bw_GBps.value, 3350);
    EXPECT_DOUBLE_EQ(c.get("h200", "t").hbm_bw_GBps.value, 4800);
    // NVLink 4 is 900 GB/s bidirectional: the catalog holds 450 per direction.
    EXPECT_DOUBLE_EQ(c.get("h100-sxm", "t").scaleup_link->bw_GBps.value, 450);
    // H100 has no fp4 tensor path; B200 has one.
    EXPECT_EQ(c.get("h100-sxm", "t").peak(Unit::tensor, "fp4"), nullptr);
    EXPECT_NE(c.get("b200", "t").peak(Unit::tensor, "fp4"), nullptr);
    // B200's memory bandwidth records the disagreement (marketed vs bus width × clock).
    EXPECT_FALSE(c.get("b200", "t").hbm_bw_GBps.alternatives.empty());
    // NVL cards: the datasheets' NVL column prints BF16 1,671* and FP8 3,341* with sparsity: 835.5 / 1670.5 dense.
    for (const char* id : {"h100-nvl", "h200-nvl"}) {
        EXPECT_DOUBLE_EQ(c.get(id, "t").peak(Unit::tensor, "bf16")->value, 1671.0 / 2) << id;
        EXPECT_DOUBLE_EQ(c.get(id, "t").peak(Unit::tensor, "fp8")->value, 3341.0 / 2) << id;
        EXPECT_FALSE(c.get(id, "t").scaleup_link->nvls) << id;  // a bridge, no NVSwitch
    }
    // GeForce cards: BF16 with FP32 accumulate (what bwacct's GEMMs do) is half the FP16-accumulate rate.
    // RTX 4090: 128 SM x 512 FLOP/clk x 2.52 GHz = 165.2; RTX 5090: 170 x 512 x 2.407 GHz = 209.5.
    EXPECT_DOUBLE_EQ(c.get("rtx-4090", "t").peak(Unit::tensor, "bf16")->value, 165.2);
    EXPECT_DOUBLE_EQ(c.get("rtx-5090", "t").peak(Unit::tensor, "bf16")->value, 209.5);
    EXPECT_DOUBLE_EQ(c.get("rtx-4090", "t").peak(Unit::tensor, "fp16")->alternatives.at(0).value, 330.3);  // FP16 accumulate
    // The professional GB202 card runs FP32 accumulate at full rate: 188 x 1024 x 2.617 GHz = 503.8.
    EXPECT_DOUBLE_EQ(c.get("rtx-pro-6000-blackwell", "t").peak(Unit::tensor, "bf16")->value, 503.8);
    // MI250X is filed per GCD (ROCm's device): module 383 TFLOPS / 2, 3276.8 GB/s / 2.
    EXPECT_DOUBLE_EQ(c.get("mi250x", "t").peak(Unit::tensor, "bf16")->value, 383.0 / 2);
    EXPECT_DOUBLE_EQ(c.get("mi250x", "t").hbm_bw_GBps.value, 3276.8 / 2);
    // Cards without a scale-up link hold none; PCIe is per direction (Gen4 x16 64 GB/s bidirectional -> 32).
    for (const char* id : {"a10", "a10g", "l40", "rtx-4090"}) {
        EXPECT_FALSE(c.get(id, "t").scaleup_link.has_value()) << id;
        EXPECT_DOUBLE_EQ(c.get(id, "t").pcie->bw_GBps.value, 32) << id;
    }
    for (const char* id : {"rtx-5090", "rtx-pro-6000-blackwell"})
        EXPECT_DOUBLE_EQ(c.get(id, "t").pcie->bw_GBps.value, 64) << id;  // Gen5 x16: 128 bidirectional
    for (const GpuSpec& g : c.gpus()) {
        EXPECT_FALSE(g.hbm_bw_GBps.source.empty()) << g.id;
        EXPECT_FALSE(g.launch_overhead_us.source.empty()) << g.id;
    }
}

TEST(Catalog, MatchesDeviceNamesByWholeWords) {
    const Catalog c = shipped();
    auto id = [&](const char* device) {
        const GpuSpec* g = c.match(device);
        return g != nullptr ? g->id : std::string("none");
    };
    // cudaGetDeviceProperties names as the drivers print them.
    EXPECT_EQ(id("NVIDIA H100 80GB HBM3"), "h100-sxm");
    EXPECT_EQ(id("NVIDIA H100 PCIe"), "h100-pcie");
    EXPECT_EQ(id("NVIDIA H200"), "h200");
    EXPECT_EQ(id("NVIDIA B200"), "b200");
    EXPECT_EQ(id("NVIDIA A100-SXM4-80GB"), "a100-sxm-80gb");
    EXPECT_EQ(id("NVIDIA L4"), "l4");
    EXPECT_EQ(id("NVIDIA L40S"), "l40s");
    EXPECT_EQ(id("NVIDIA L40"), "l40");  // neither L4 nor L40S may claim it
    // Issue 15: "NVIDIA H200 NVL" matched the SXM entry by word; the NVL cards have their own entries.
    EXPECT_EQ(id("NVIDIA H200 NVL"), "h200-nvl");
    EXPECT_EQ(id("NVIDIA H100 NVL"), "h100-nvl");
    EXPECT_EQ(id("NVIDIA GB300"), "gb300");
    EXPECT_EQ(id("NVIDIA B300 SXM6 AC"), "b300");
    EXPECT_EQ(id("NVIDIA A10"), "a10");
    EXPECT_EQ(id("NVIDIA A10G"), "a10g");
    EXPECT_EQ(id("NVIDIA A100 80GB PCIe"), "a100-pcie-80gb");  // its own entry; "NVIDIA A10" is a prefix, not a word of it
    EXPECT_EQ(id("NVIDIA GeForce RTX 4090"), "rtx-4090");
    EXPECT_EQ(id("NVIDIA GeForce RTX 5090"), "rtx-5090");
    EXPECT_EQ(id("NVIDIA RTX PRO 6000 Blackwell Server Edition"), "rtx-pro-6000-blackwell");
    EXPECT_EQ(id("NVIDIA RTX PRO 6000 Blackwell Workstation Edition"), "rtx-pro-6000-blackwell");
    EXPECT_EQ(id("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"), "none");  // 300 W part, other clocks
    EXPECT_EQ(id("AMD Instinct MI250X"), "mi250x");
    EXPECT_EQ(id("AMD Instinct MI300A"), "mi300a");
    EXPECT_EQ(id("AMD Instinct MI300X"), "mi300x");
}

// A name too short to match one entry ("NVIDIA H100": Kineto's writer output names no variant) lists the
// entries it begins, as whole words, so the refusal can name them; a name that begins none lists none.
TEST(Catalog, CandidatesAreTheEntriesTheNameBegins) {
    const Catalog c = shipped();
    auto ids = [&](const char* device) {
        std::vector<std::string> v;
        for (const GpuSpec* g : c.candidates(device))
            v.push_back(g->id);
        return v;
    };
    EXPECT_EQ(c.match("NVIDIA H100"), nullptr);
    EXPECT_EQ(ids("NVIDIA H100"), (std::vector<std::string>{"h100-sxm", "h100-pcie", "h100-nvl"}));
    EXPECT_EQ(ids("nvidia h100"), (std::vector<std::string>{"h100-sxm", "h100-pcie", "h100-nvl"}));  // case ignored
    EXPECT_TRUE(ids("NVIDIA H1").empty());  // "NVIDIA H1" begins no name as a whole word
    EXPECT_TRUE(ids("").empty());
}

TEST(Catalog, EveryMatchStringAndNameFindsItsOwnEntry) {
    // No entry's match string may resolve to another entry (a prefix or a shorter word swallowing it).
    const Catalog c = shipped();
    for (const GpuSpec& g : c.gpus()) {
        const GpuSpec* by_name = c.match(g.name);
        EXPECT_TRUE(by_name != nullptr && by_name->id == g.id) << g.name;
        for (const std::string& m : g.match) {
            const GpuSpec* found = c.match(m);
            EXPECT_TRUE(found != nullptr && found->id == g.id)
                << "'" << m << "' of " << g.id << " resolves to " << (found != nullptr ? found->id : "none");
        }
    }
}

// Issue 11, defect 19: every entry's own name matches it, also with a remark after it (the
// simulated backend's "NAME (simulated)"); the old matcher knew only the match strings, so
// "NVIDIA H100 SXM5 80GB (simulated)" and both A100 entries matched nothing.
TEST(Catalog, EveryEntryMatchesItsOwnName) {
    const Catalog c = shipped();
    for (const GpuSpec& g : c.gpus()) {
        const GpuSpec* exact = c.match(g.name);
        EXPECT_EQ(exact != nullptr ? exact->id : "none", g.id) << g.name;
        const GpuSpec* remark = c.match(g.name + " (simulated)");
        EXPECT_EQ(remark != nullptr ? remark->id : "none", g.id) << g.name;
    }
}

// Exact names first, then fuzzy, and fuzzy never claims a name with a further word after the
// matched one: "NVIDIA H200 NVL" is not the SXM H200 (issue 15), whatever the order of entries.
TEST(Catalog, ExactNamesBeforeFuzzyAndNoVariantClaimed) {
    const std::string head = R"({"schema": "bwacct.gpus/1", "gpus": {)";
    auto entry = [](const std::string& id, const std::string& name, const std::string& match) {
        return "\"" + id + "\": {\"name\": \"" + name + "\", \"match\": [\"" + match +
               R"("], "hbm_bw_GBps": {"value": 1, "source": "s"}, "launch_overhead_us": {"value": 1, "source": "s"}})";
    };
    const Catalog sxm_only = Catalog::parse(head + entry("h200", "NVIDIA H200 SXM 141GB", "NVIDIA H200") + "}}", "t");
    auto id = [](const Catalog& c, const char* device) {
        const GpuSpec* g = c.match(device);
        return g != nullptr ? g->id : std::string("none");
    };
    EXPECT_EQ(id(sxm_only, "NVIDIA H200"), "h200");
    EXPECT_EQ(id(sxm_only, "NVIDIA H200 NVL"), "none");  // the old matcher said h200
    EXPECT_EQ(id(sxm_only, "NVIDIA H200 (MIG 1g.18gb)"), "h200");
    // With an NVL entry listed after the SXM one, each name gets its own entry.
    const Catalog both = Catalog::parse(head + entry("h200", "NVIDIA H200 SXM 141GB", "NVIDIA H200") + "," +
                                            entry("h200-nvl", "NVIDIA H200 NVL 141GB", "NVIDIA H200 NVL") + "}}",
                                        "t");
    EXPECT_EQ(id(both, "NVIDIA H200"), "h200");
    EXPECT_EQ(id(both, "NVIDIA H200 NVL"), "h200-nvl");
}

// Issue 11, defect 20: a key twice in one JSON object is refused, naming the key (nlohmann keeps
// the last one silently); an id twice under "gpus" is named as a GPU id.
TEST(Catalog, DuplicateKeysAreRefused) {
    const std::string m = kMinimal;
    auto message = [](const std::string& text) {
        try {
            Catalog::parse(text, "dup.json");
        } catch (const InputError& e) {
            EXPECT_EQ(e.option(), "dup.json");
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(
        message(replace(m, "\"name\": \"My GPU\",", "\"name\": \"My GPU\", \"name\": \"Other\",")).find("gpus.mine: key 'name'"),
        std::string::npos);
    EXPECT_NE(
        message(replace(m, "\"value\": 1000,", "\"value\": 1000, \"value\": 9,")).find("gpus.mine.hbm_bw_GBps: key 'value'"),
        std::string::npos);
    EXPECT_NE(message(replace(m, "\"schema\": \"bwacct.gpus/1\",", "\"schema\": \"bwacct.gpus/1\", \"schema\": \"x\","))
                  .find("top level: key 'schema'"),
              std::string::npos);
    const std::string twice = replace(m, "\"gpus\": {", "\"gpus\": {\"mine\": {}, ");
    EXPECT_NE(message(twice).find("GPU id 'mine' is defined twice"), std::string::npos) << message(twice);
    // The same key in different objects is fine.
    EXPECT_NO_THROW(Catalog::parse(m, "ok.json"));
}

TEST(Catalog, MergeAddsAndOverrides) {
    Catalog c = shipped();
    const std::size_t n = c.gpus().size();
    EXPECT_TRUE(c.merge(Catalog::parse(kMinimal, "mine.json")).empty());  // added, nothing replaced
    EXPECT_EQ(c.gpus().size(), n + 1);
    EXPECT_DOUBLE_EQ(c.get("mine", "t").hbm_bw_GBps.value, 1000);
    EXPECT_TRUE(c.merge(Catalog::parse(kMinimal, "mine.json")).empty());  // the same entry again: no change
    EXPECT_TRUE(c.merge(Catalog::parse(replace(kMinimal, "My GPU", "Your GPU"), "mine.json")) ==
                std::vector<std::string>{"mine"});
    const std::vector<std::string> replaced = c.merge(Catalog::parse(replace(kMinimal, "\"mine\"", "\"h200\""), "override.json"));
    EXPECT_EQ(replaced, std::vector<std::string>{"h200"});  // the caller warns: the file's entry wins
    EXPECT_DOUBLE_EQ(c.get("h200", "t").hbm_bw_GBps.value, 1000);
    EXPECT_EQ(c.gpus().size(), n + 1);
}

TEST(Catalog, RefusesDishonestOrBrokenEntries) {
    const std::string m = kMinimal;
    const std::vector<std::string> bad = {
        "{not json",
        "[]",
        replace(m, "bwacct.gpus/1", "other/2"),
        replace(m, "\"dense\"", "\"sparse\""),                 // sparse filed as a peak
        replace(m, ", \"source\": \"datasheet p.3\"", ""),     // a figure without a source
        replace(m, "\"value\": 1000", "\"value\": -1"),        // non-positive
        replace(m, "\"value\": 1000", "\"value\": \"fast\""),  // not a number
        replace(m, "\"bf16\": {", "\"fp7\": {"),               // unknown dtype key
        replace(m, "\"launch_overhead_us\"", "\"launch\""),    // missing required figure
    };
    for (const std::string& text : bad) {
        try {
            Catalog::parse(text, "bad.json");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const InputError& e) {
            EXPECT_EQ(e.option(), "bad.json");
        }
    }
    const std::string bidirectional = R"({"schema": "bwacct.gpus/1", "gpus": {"x": {"name": "X",
      "hbm_bw_GBps": {"value": 1, "source": "s"}, "launch_overhead_us": {"value": 1, "source": "s"},
      "scaleup_link": {"name": "L", "bw_GBps": {"value": 900, "direction": "bidirectional", "source": "s"}}}}})";
    EXPECT_THROW(Catalog::parse(bidirectional, "bad.json"), InputError);
    // Fuzzer finding: a number beyond a double (1e999) is bad input, not an internal error.
    EXPECT_THROW(Catalog::parse(R"({"schema": "bwacct.gpus/1", "gpus": {"x": {"hbm_bw_GBps": {"value": 1e999}}}})", "bad.json"),
                 InputError);
}

TEST(Catalog, FileErrorsNameTheOption) {
    EXPECT_THROW(Catalog::load("/nonexistent/gpus.json", "--gpu-file"), InputError);
    try {
        Catalog::load(BWACCT_TEST_DATA, "--gpu-file");  // a directory
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "--gpu-file");
    }
}

// Every device name the added entries are for, as the CUDA/ROCm runtime, nvidia-smi, Kineto's deviceProperties
// and nccl-tests' "# Rank ... device N [0x..] NAME" lines print them. Where each was seen (docs/catalog.md,
// "Device names"): NVIDIA's driver README table of product names by PCI ID (open-gpu-kernel-modules 560.31.02)
// for every NVIDIA name from Turing on, including Meta's board names (PG509-200 is PCI 20B0 = A100-SXM4-40GB,
// PG509-210 is 20B2 = A100-SXM4-80GB); nccl-tests logs for "NVIDIA H800", "Tesla T4", "Tesla V100-SXM2-32GB";
// ROCm's marketing-name table and hipDeviceProp dumps for the AMD names.
TEST(Catalog, MatchesEveryAddedDeviceName) {
    const Catalog c = shipped();
    auto id = [&](const std::string& device) {
        const GpuSpec* g = c.match(device);
        return g != nullptr ? g->id : std::string("none");
    };
    const std::vector<std::pair<std::string, std::string>> names = {
        {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"},
        {"A100-PCIE-40GB", "a100-pcie-40gb"},  // drivers before R510 print no "NVIDIA "
        {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
        {"NVIDIA A100-PG509-200", "a100-sxm-40gb"},
        {"NVIDIA PG509-210", "a100-sxm-80gb"},
        {"NVIDIA A800-SXM4-80GB", "a800-sxm4-80gb"},
        {"NVIDIA A800 80GB PCIe", "a800-pcie-80gb"},
        {"NVIDIA A800 80GB PCIe LC", "a800-pcie-80gb"},
        {"NVIDIA H800", "h800"},
        {"NVIDIA H800 PCIe", "h800-pcie"},
        {"NVIDIA H20", "h20"},
        {"NVIDIA GH200 480GB", "gh200"},
        {"NVIDIA GH200 120GB", "gh200"},  // same PCI device 2342 (96 GB HBM3), less LPDDR5X on the Grace side
        {"NVIDIA GH200 144G HBM3e", "gh200-144gb"},
        {"Tesla V100-SXM2-16GB", "v100-sxm2-16gb"},
        {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
        {"Tesla V100-DGXS-32GB", "v100-sxm2-32gb"},  // DGX Station: the SXM2-class module
        {"Tesla V100-PCIE-16GB", "v100-pcie-16gb"},
        {"Tesla V100-PCIE-32GB", "v100-pcie-32gb"},
        {"Tesla T4", "t4"},
        // A cloud VM's SR-IOV virtual function of an MI300X: the whole GPU (one VF per MI300X; docs/catalog.md).
        {"AMD Instinct MI300X VF", "mi300x"},
        {"NVIDIA A30", "a30"},
        {"NVIDIA A40", "a40"},
        {"NVIDIA RTX A6000", "rtx-a6000"},
        {"NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"},
        {"NVIDIA GeForce RTX 3090", "rtx-3090"},
        {"AMD Instinct MI210", "mi210"},
        {"AMD Instinct MI250", "mi250"},
        {"AMD Instinct MI100", "mi100"},
    };
    for (const auto& [device, want] : names) {
        EXPECT_EQ(id(device), want) << device;
        EXPECT_EQ(id(device + " (simulated)"), want) << device;  // a remark in parentheses changes nothing
    }
}

// Names one word away from an entry's: a longer model name, another variant or a part the catalog lacks.
// Each is its own entry or none, never the entry whose string is a prefix or a part of it.
TEST(Catalog, NearMissesOfTheAddedNamesClaimNoOtherEntry) {
    const Catalog c = shipped();
    auto id = [&](const char* device) {
        const GpuSpec* g = c.match(device);
        return g != nullptr ? g->id : std::string("none");
    };
    EXPECT_EQ(id("NVIDIA H200"), "h200");          // not h20 ("NVIDIA H20" is a prefix, not a word)
    EXPECT_EQ(id("NVIDIA H20 HBM3e"), "none");     // PCI 232C, other memory: not the 96 GB H20
    EXPECT_EQ(id("NVIDIA H800 NVL"), "none");      // PCI 233A: neither the SXM nor the PCIe H800
    EXPECT_EQ(id("NVIDIA GH200 480GB"), "gh200");  // not h200: "H200" follows a G
    EXPECT_EQ(id("NVIDIA H100"), "none");          // Meta's PCI 2339 part: no variant named
    EXPECT_EQ(id("NVIDIA H100 PCIe"), "h100-pcie");
    EXPECT_EQ(id("NVIDIA H100 80GB HBM3"), "h100-sxm");
    EXPECT_EQ(id("NVIDIA A100-SXM-64GB"), "none");  // Leonardo's 64 GB part (PCI 20B3)
    EXPECT_EQ(id("NVIDIA PG506-232"), "none");      // PCI 20B6: unknown part
    EXPECT_EQ(id("NVIDIA A800-SXM4-40GB"), "none");
    EXPECT_EQ(id("NVIDIA A800 40GB Active"), "none");
    EXPECT_EQ(id("NVIDIA A100-SXM4-40GB"), "a100-sxm-40gb");
    EXPECT_EQ(id("Tesla V100-SXM2-32GB-LS"), "none");  // the 250 W low-power module
    EXPECT_EQ(id("Tesla V100S-PCIE-32GB"), "none");    // V100S: other clocks and memory
    EXPECT_EQ(id("Tesla V100-SXM3-32GB"), "none");     // DGX-2's 350 W module
    EXPECT_EQ(id("NVIDIA T400"), "none");              // not t4 (no "Tesla T4" in it)
    EXPECT_EQ(id("NVIDIA A10"), "a10");
    EXPECT_EQ(id("NVIDIA A40-8Q"), "none");  // a vGPU profile, not the card
    EXPECT_EQ(id("NVIDIA GeForce RTX 3090 Ti"), "none");
    EXPECT_EQ(id("NVIDIA RTX 5000 Ada Generation"), "none");
    EXPECT_EQ(id("Quadro RTX 6000"), "none");
    EXPECT_EQ(id("AMD Instinct MI250X"), "mi250x");  // not mi250 ("MI250" is followed by X)
    EXPECT_EQ(id("AMD Instinct MI210"), "mi210");
    EXPECT_EQ(id("AMD Instinct MI100"), "mi100");
}

// ROCm names PCI 0x740C "AMD Instinct MI250X / MI250": it is either part (110 or 104 CUs per GCD), so no entry
// may be chosen for it, and a refusal must name both. The old candidates() listed only entries whose names
// begin with the device name, so this name got no hint at all.
TEST(Catalog, ANameListingSeveralModelsHasEachAsCandidate) {
    const Catalog c = shipped();
    EXPECT_EQ(c.match("AMD Instinct MI250X / MI250"), nullptr);
    std::vector<std::string> ids;
    for (const GpuSpec* g : c.candidates("AMD Instinct MI250X / MI250"))
        ids.push_back(g->id);
    EXPECT_EQ(ids, (std::vector<std::string>{"mi250x", "mi250"}));
    // HIP, rocminfo and torch.cuda.get_device_name() write it without spaces around the slash (it gave no candidate).
    EXPECT_EQ(c.match("AMD Instinct MI250X/MI250"), nullptr);
    ids.clear();
    for (const GpuSpec* g : c.candidates("AMD Instinct MI250X/MI250"))
        ids.push_back(g->id);
    EXPECT_EQ(ids, (std::vector<std::string>{"mi250x", "mi250"}));
    // The mechanism, on a two-entry catalog: the later part takes the first part's family words.
    const std::string head = R"({"schema": "bwacct.gpus/1", "gpus": {)";
    auto entry = [](const std::string& id, const std::string& name) {
        return "\"" + id + "\": {\"name\": \"" + name +
               R"(", "hbm_bw_GBps": {"value": 1, "source": "s"}, "launch_overhead_us": {"value": 1, "source": "s"}})";
    };
    const Catalog two = Catalog::parse(head + entry("x", "Vendor Card X9") + "," + entry("y", "Vendor Card Y7") + "}}", "t");
    ids.clear();
    for (const GpuSpec* g : two.candidates("Vendor Card Y7 / X9"))
        ids.push_back(g->id);
    EXPECT_EQ(ids, (std::vector<std::string>{"y", "x"}));
    EXPECT_TRUE(two.candidates("Vendor Card Z1 / Z2").empty());  // parts that match nothing give nothing
    EXPECT_EQ(two.match("Vendor Card Y7 / X9"), nullptr);
}

// The added entries' headline figures: dense peaks (datasheet "with sparsity" / 2), links per direction
// (bidirectional / 2), AMD dual-die modules per GCD (module / 2).
TEST(Catalog, AddedEntriesAreDensePerDirectionAndPerGcd) {
    const Catalog c = shipped();
    auto bf16 = [&](const char* id) { return c.get(id, "t").peak(Unit::tensor, "bf16")->value; };
    // A800: NVLink 400 GB/s bidirectional (A100: 600) -> 200 per direction; compute as A100 (312 dense = 624* / 2).
    EXPECT_DOUBLE_EQ(c.get("a800-sxm4-80gb", "t").scaleup_link->bw_GBps.value, 400.0 / 2);
    EXPECT_DOUBLE_EQ(bf16("a800-sxm4-80gb"), 624.0 / 2);
    EXPECT_DOUBLE_EQ(bf16("a100-pcie-40gb"), 624.0 / 2);
    EXPECT_DOUBLE_EQ(c.get("a100-pcie-80gb", "t").hbm_bw_GBps.value, 1935);
    // H800: H100 SXM compute (132 SMs × 4096 dense BF16 FLOP/clk × 1.83 GHz = 989.43), NVLink 400 bidirectional -> 200.
    EXPECT_DOUBLE_EQ(bf16("h800"), 989.4);
    EXPECT_DOUBLE_EQ(c.get("h800", "t").scaleup_link->bw_GBps.value, 400.0 / 2);
    EXPECT_FALSE(c.get("h800-pcie", "t").scaleup_link->nvls);  // a bridge
    // H20: 296* / 2 = 148 dense BF16; NVLink 900 bidirectional -> 450.
    EXPECT_DOUBLE_EQ(bf16("h20"), 296.0 / 2);
    EXPECT_DOUBLE_EQ(c.get("h20", "t").scaleup_link->bw_GBps.value, 900.0 / 2);
    // GH200: host link is NVLink-C2C, 900 GB/s bidirectional -> 450 per direction; 4 and 4.9 TB/s HBM.
    EXPECT_DOUBLE_EQ(c.get("gh200", "t").pcie->bw_GBps.value, 900.0 / 2);
    EXPECT_DOUBLE_EQ(c.get("gh200", "t").hbm_bw_GBps.value, 4000);
    EXPECT_DOUBLE_EQ(c.get("gh200-144gb", "t").hbm_bw_GBps.value, 4900);
    // V100 / T4: no BF16 tensor path; FP16 tensor 125 (SXM2) / 112 (PCIe) / 65.13 (T4), no sparsity on Volta/Turing.
    for (const char* id : {"v100-sxm2-16gb", "v100-sxm2-32gb", "v100-pcie-16gb", "v100-pcie-32gb", "t4"})
        EXPECT_EQ(c.get(id, "t").peak(Unit::tensor, "bf16"), nullptr) << id;
    EXPECT_DOUBLE_EQ(c.get("v100-sxm2-32gb", "t").peak(Unit::tensor, "fp16")->value, 125);
    EXPECT_DOUBLE_EQ(c.get("v100-pcie-16gb", "t").peak(Unit::tensor, "fp16")->value, 112);
    EXPECT_DOUBLE_EQ(c.get("v100-sxm2-16gb", "t").scaleup_link->bw_GBps.value, 300.0 / 2);  // NVLink2 6 x 50
    EXPECT_FALSE(c.get("t4", "t").scaleup_link.has_value());
    EXPECT_DOUBLE_EQ(c.get("t4", "t").pcie->bw_GBps.value, 16);  // Gen3 x16: 32 bidirectional
    // A40: 299.4* / 2 = 149.7; RTX 6000 Ada FP8: 1457.0* / 2 = 728.5; GA102 NVLink bridge 112.5 / 2 = 56.25.
    EXPECT_DOUBLE_EQ(bf16("a40"), 299.4 / 2);
    EXPECT_DOUBLE_EQ(c.get("rtx-6000-ada", "t").peak(Unit::tensor, "fp8")->value, 1457.0 / 2);
    EXPECT_DOUBLE_EQ(c.get("rtx-a6000", "t").scaleup_link->bw_GBps.value, 112.5 / 2);
    // RTX 3090 (GeForce): FP32-accumulate rate 82 x 512 x 1.695 GHz = 71.2 (printed 71), half the FP16-accumulate 142.
    EXPECT_DOUBLE_EQ(bf16("rtx-3090"), 71);
    EXPECT_DOUBLE_EQ(c.get("rtx-3090", "t").peak(Unit::tensor, "fp16")->alternatives.at(0).value, 142);
    // MI250 per GCD: module 362.1 / 2 = 181.05 TFLOPS, 3276.8 / 2 = 1638.4 GB/s; MI210 is one such die (181.0).
    EXPECT_DOUBLE_EQ(bf16("mi250"), 362.1 / 2);
    EXPECT_DOUBLE_EQ(c.get("mi250", "t").hbm_bw_GBps.value, 3276.8 / 2);
    EXPECT_DOUBLE_EQ(bf16("mi210"), 181.0);
    // MI100: BF16 matrix at half the FP16 rate (120 x 512 x 1.502 GHz = 92.3).
    EXPECT_DOUBLE_EQ(bf16("mi100"), 92.3);
}
