// nccl-tests output: the text log of every version, or the -J JSON file (parse_nccl_tests picks by
// the first character).
#include <cmath>
#include <cstdint>
#include <string>

#include "bwacct/ingest_nccl.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using bwacct::fuzz::check;
    const std::string text = bwacct::fuzz::as_text(data, size);
    bwacct::fuzz::accept_rejection([&] {
        const bwacct::NcclLog log = bwacct::parse_nccl_tests(text, "fuzz.txt");
        check(!log.runs.empty(), "a log without result rows was accepted");
        for (const bwacct::NcclRun& run : log.runs) {
            check(!run.rows.empty(), "a run without result rows was kept");
            (void)bwacct::collective_from_name(run.program);
            for (const bwacct::NcclRow& row : run.rows)
                for (const auto& result : {row.out_of_place, row.in_place})
                    if (result)
                        check(std::isfinite(result->time_us.value) && std::isfinite(result->algbw_GBps.value) &&
                                  std::isfinite(result->busbw_GBps.value),
                              "a time or bandwidth is not finite");
        }
    });
    return 0;
}
