// Issue 11 defect 4: a catalog figure outside [1e-6, 1e15] (1e-310 GB/s, 1e308 TFLOP/s) made every
// derived figure inf or NaN; it is refused when the catalog is read, naming the field.
#include <gtest/gtest.h>

#include "bwacct/catalog.h"
#include "bwacct/error.h"

using namespace bwacct;

namespace {

std::string entry(const std::string& hbm, const std::string& tflops) {
    return R"({"schema": "bwacct.gpus/1", "gpus": {"mine": {"name": "My GPU", "hbm_bw_GBps": {"value": )" + hbm +
           R"(, "source": "s"}, "tensor_tflops": {"bf16": {"value": )" + tflops +
           R"(, "sparsity": "dense", "source": "s"}}, "launch_overhead_us": {"value": 3, "source": "s"}}}})";
}

std::string error_of(const std::string& text) {
    try {
        Catalog::parse(text, "my.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST(CatalogRange, RefusesFiguresWhoseDerivedFiguresLeaveTheDoubleRange) {
    EXPECT_NE(error_of(entry("1e-310", "100")).find("hbm_bw_GBps.value"), std::string::npos);  // subnormal
    EXPECT_NE(error_of(entry("1e-7", "100")).find("plausible range"), std::string::npos);
    EXPECT_NE(error_of(entry("1000", "1e308")).find("tensor_tflops.bf16.value"), std::string::npos);
    EXPECT_NE(error_of(entry("1000", "1e16")).find("plausible range"), std::string::npos);
    // The ends of the range are accepted.
    EXPECT_EQ(error_of(entry("1e-6", "1e15")), "accepted");
}
