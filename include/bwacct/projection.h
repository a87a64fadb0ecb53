// Projection of a rate or a time measured on one GPU to another by the ratio of the binding roof
// (seed 000's anchor observation: single-stream FPS tracks HBM bandwidth across GPU generations).
// Pure: no I/O (src/analysis/projection.cpp). Formulas: docs/formulas.md, "Projection".
#pragma once
#include <string>
#include <vector>

#include "bwacct/cost.h"
#include "bwacct/dtype.h"
#include "bwacct/gpu.h"
#include "bwacct/roofline.h"

namespace bwacct {

// A rate (frames/s, tokens/s, ...) grows with the roof; a time shrinks with it.
enum class Quantity { rate, time };

struct ProjectionRequest {
    Roof bound = Roof::hbm;                   // hbm, compute, link or dispatch (overhead is refused)
    DType dtype = DType::bf16;                // compute: whose dense peak
    Unit unit = Unit::tensor;                 // compute: tensor-core or vector peak
    LinkChoice link = LinkChoice::automatic;  // link: scale-up if the GPU has one, else PCIe
    Quantity quantity = Quantity::rate;
    double value = 0;  // the given rate or time (positive)
};

// The catalog figure of the binding roof on one GPU, with its provenance.
struct RoofFigure {
    std::string gpu;   // catalog id
    std::string what;  // "HBM bandwidth", "tensor bf16 dense peak", "NVLink 4 ... per direction"
    std::string key;   // JSON key with its unit: "hbm_GBps", "tflops", "link_GBps"; empty for dispatch
    std::string unit;  // "GB/s", "TFLOP/s"; empty for dispatch
    double value = 0;  // 0 for dispatch (no figure used)
    std::string source, note;
    // The catalog's alternatives for this figure, except those it marks REJECTED.
    std::vector<Figure::Alternative> alternatives;
};

// The projection under one alternative figure of either GPU.
struct AlternativeProjection {
    std::string gpu;  // whose figure was replaced
    double figure = 0;
    std::string label;  // short name from the catalog note ("derived"), may be empty
    std::string note, source;
    double ratio = 0;  // speed ratio to/from with this figure
    double projected = 0;
};

struct Projection {
    Roof bound = Roof::hbm;
    Quantity quantity = Quantity::rate;
    double given = 0;  // on `from`
    RoofFigure from, to;
    double ratio = 1;      // speed ratio: to.value / from.value (1 for dispatch)
    double projected = 0;  // rate × ratio, or time / ratio
    std::vector<AlternativeProjection> alternatives;
    std::vector<std::string> notes;
};

// The figure of `bound` on `gpu`; throws InputError naming `option` when the GPU lacks it (no peak
// for the dtype, no link) or when `bound` is overhead.
RoofFigure binding_figure(const GpuSpec& gpu, const ProjectionRequest& req, const std::string& option);

// Projects req.value from `from` to `to`. Throws InputError naming --from/--to for missing figures
// and naming `value_option` for a value that is not positive.
Projection project(const GpuSpec& from, const GpuSpec& to, const ProjectionRequest& req,
                   const std::string& value_option = "--fps");

// A time belongs to one GPU: `cost` analysed on gpus[anchor] at options.time_us (given, measured or
// ingested), and on every other GPU at that time projected by the ratio of the anchor's binding roof
// (its modelled bound), as project() does; those verdicts' TimedAnalysis::projected_from names the
// anchor and their first note says how the time was projected. Without a time: analyze on each GPU.
std::vector<Verdict> analyze_anchored(const Cost& cost, const std::vector<const GpuSpec*>& gpus, std::size_t anchor,
                                      const AnalysisOptions& options);

// A short label from a catalog note: the words before a ':' near its start ("derived: ..." →
// "derived"), else empty.
std::string figure_label(const std::string& note);

}  // namespace bwacct
