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
        // A file of memory-operation tables alone is read (nsys's cuda_gpu_mem_time_sum): rows of either kind.
        check(!sum.kernels.empty() || !sum.memory_ops.empty(), "a table without rows was accepted");
        for (const bwacct::NsysKernel& k : sum.kernels)
            check(std::isfinite(k.total_us), "a kernel's total time is not finite");
        for (const bwacct::NsysMemOp& m : sum.memory_ops)
            check(std::isfinite(m.total_us) && (!m.bytes || std::isfinite(*m.bytes)), "a memory operation is not finite");
        (void)bwacct::nsys_report(sum, "fuzz.csv");
    });
    return 0;
}
