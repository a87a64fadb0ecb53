// Runs an op subcommand: parses the numeric options (each may be a range or list), evaluates every
// combination (a sweep), analyzes each on every selected GPU and streams the records to the sink.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "bwacct/record.h"
#include "bwacct/roofline.h"
#include "bwacct/values.h"
#include "command.h"

namespace bwacct::cli {

struct Axis {
    Axis(std::string option_, ValueKind kind_, std::string param_ = {})
        : option(std::move(option_)), kind(kind_), param(std::move(param_)) {}
    std::string option;  // "--m"
    ValueKind kind;
    std::string param;  // name in output; default: the option without dashes, '-' → '_' ("kv_heads")
    std::string param_name() const;
};

// One combination of axis values.
class Point {
public:
    Point(const std::vector<Axis>& axes, std::vector<double> values) : axes_(&axes), values_(std::move(values)) {}
    std::uint64_t count(const std::string& option) const;  // an integer axis' value
    double real(const std::string& option) const;
    const std::vector<double>& values() const { return values_; }

private:
    const std::vector<Axis>* axes_;
    std::vector<double> values_;
};

struct Evaluated {
    Cost cost;
    std::optional<Cost> fused;       // elementwise chains: the fused alternative
    std::vector<Param> params = {};  // parameters derived from the point (conv: output size, implicit GEMM)
};

struct OpPlan {
    std::vector<Axis> axes;
    std::vector<Param> fixed;  // non-numeric parameters, reported as given
    std::string size_options;  // named when a count overflows: "--m, --n, --k, --batch"
    AnalysisOptions analysis;  // link choice and overrides; time and launch are filled by run_op
    std::function<Evaluated(const Point&)> evaluate;
    std::map<std::string, std::string> defaults;  // values for axes whose option was left empty
    // Measures the point on a backend (--measure); empty for ops bwacct cannot run yet.
    std::function<Timing(measure::Backend&, const Point&, const measure::SamplePolicy&)> measure;
};

int run_op(const OpPlan& plan, const Args& args, const Env& env);

// --measure and its sampling options, for the op commands that can run on a GPU.
std::vector<OptionSpec> measure_options();
measure::SamplePolicy sample_policy(const Args& args);

// Helpers shared by the op commands.
DType dtype_option(const Args& args, const std::string& option);
std::optional<double> single_real(const Args& args, const std::string& option);
// --launch-us: one positive real, or 0 (no dispatch roof: launches cost nothing).
std::optional<double> launch_us_option(const Args& args);

}  // namespace bwacct::cli
