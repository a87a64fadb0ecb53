// Roofs, verdict and utilization of one Cost on one GPU (src/analysis/).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bwacct/cost.h"
#include "bwacct/efficiency.h"
#include "bwacct/gpu.h"
#include "bwacct/measurement.h"

namespace bwacct {

enum class Roof { compute, hbm, link, dispatch, overhead };
std::string_view roof_name(Roof r);

enum class LinkChoice { automatic, scaleup, pcie };

// What the user told us beyond the op itself.
struct AnalysisOptions {
    std::optional<double> time_us;    // a time measured elsewhere (--time-us): "given"
    std::optional<double> link_GBps;  // per-direction link bandwidth override (--link-GBps)
    std::optional<double> alpha_us;   // per-step latency override (--alpha-us)
    std::optional<double> launch_us;  // launch overhead override (--launch-us)
    LinkChoice link = LinkChoice::automatic;
    bool explain = false;   // fill Verdict::terms (formatting costs time in big sweeps)
    Efficiency efficiency;  // --efficiency: fractions of the catalog's compute, HBM and link peaks (not of given values)
};

struct RoofTimes {
    double compute = 0, hbm = 0, link = 0, dispatch = 0;
    double max() const;
    double sum() const { return compute + hbm + link + dispatch; }
    Roof argmax() const;
};

// The peaks actually used, so every output can say which figure it divided by.
struct PeaksUsed {
    std::optional<double> compute_tflops;  // dense; absent for ops without FLOPs
    std::string compute_label;             // "tensor bf16 dense"
    bool compute_fallback = false;         // the dtype's vector peak is missing: the fp32 one is used
    double hbm_GBps = 0;
    std::optional<double> link_GBps;  // per direction; collectives only
    std::string link_name;
    double alpha_us = 0;
    bool alpha_missing = false;  // no step latency known for this link: α = 0
    bool nvls_unlisted = false;  // a trace's NVLS kernel on a GPU the catalog lists without NVLS
    double launch_us = 0;
    Efficiency efficiency;  // the factors applied to the figures above (1 = the catalog's peak)
};

// Analysis of a time the user gave (or, later, measured).
struct TimedAnalysis {
    double time_us = 0;
    double implied_bw_GBps = 0;  // HBM bytes / time
    double tflops = 0;           // FLOPs / time
    double util_compute = 0, util_hbm = 0;
    std::optional<double> util_link;
    RoofTimes shares;  // roof time / time
    Roof bound = Roof::overhead;
    double unexplained = 0;  // 1 − largest share, when no roof explains half the time
    // A time belongs to one GPU: on every other GPU it is projected by the ratio of the binding roof
    // (as `bwacct project` does); then this names the GPU the time was given or measured on.
    std::string projected_from;
    std::optional<double> x_floor;  // time / floor: 1 at the roofline, 2 at twice the floor; absent for a zero floor
};

struct Verdict {
    std::string gpu;
    PeaksUsed peaks;
    RoofTimes roofs_us;
    double floor_us = 0;  // the largest roof: the time if everything overlaps perfectly
    double sum_us = 0;    // no overlap at all
    Roof bound = Roof::compute;
    double intensity = 0;                     // FLOP per HBM byte
    std::optional<double> ridge;              // FLOP/byte where compute and HBM roofs meet
    std::optional<double> attainable_tflops;  // min(peak, intensity × HBM bandwidth)
    std::optional<double> attainable_fraction;
    std::optional<TimedAnalysis> timed;
    std::optional<double> algbw_GBps, busbw_GBps;  // collectives: at the given time, else at the floor
    std::vector<Term> terms;                       // --explain lines for this GPU
    std::vector<std::string> notes;
};

// A measured op against the roofs this very GPU reached in `bwacct calibrate`.
struct AchievableUtil {
    double util_hbm = 0;                 // (HBM bytes / time) / calibrated HBM bandwidth
    std::optional<double> util_compute;  // (FLOPs / time) / calibrated bf16 TFLOP/s, for bf16 tensor ops
};
AchievableUtil achievable_util(const Cost& cost, double time_us, const Calibration& c);

// The link a collective runs over: the scale-up link, PCIe, or (automatic) the scale-up link when the
// GPU has one, else PCIe; nullptr when the GPU has no such link.
const Link* choose_link(const GpuSpec& gpu, LinkChoice choice);

// The compute peak `cost` runs against on `gpu`: the dense peak of its unit and dtype, else, for vector work, the
// fp32 vector peak (elementwise kernels do 16- and 8-bit math in fp32, PyTorch's opmath type); null when the GPU
// has neither (analyze refuses it naming the GPU).
const Figure* compute_peak(const Cost& cost, const GpuSpec& gpu);

// Throws InputError when the GPU lacks what the op needs (a peak for its dtype, a link, NVLS).
Verdict analyze(const Cost& cost, const GpuSpec& gpu, const AnalysisOptions& options);

}  // namespace bwacct
