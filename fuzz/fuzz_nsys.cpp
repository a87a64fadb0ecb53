// nsys stats cuda_gpu_kern_sum (CSV or console table, anywhere in the text): parse_nsys_kern_sum,
// then the report `bwacct ingest nsys` prints.
#include <cmath>
#include <cstdint>
#include <string>

#include "bwacct/ingest_nsight.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using bwacct::fuzz::check;
    const std::string text = bwacct::fuzz::as_text(data, size);
    bwacct::fuzz::accept_rejection([&] {
        const bwacct::NsysKernSum sum = bwacct::parse_nsys_kern_sum(text, "fuzz.csv");
        check(!sum.kernels.empty(), "a table without rows was accepted");
        for (const bwacct::NsysKernel& k : sum.kernels)
            check(std::isfinite(k.total_us), "a kernel's total time is not finite");
        (void)bwacct::nsys_report(sum, "fuzz.csv");
    });
    return 0;
}
