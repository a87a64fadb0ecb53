// ncu --csv (--page details, one row per metric; --page raw, one row per kernel): parse_ncu_csv,
// then the report `bwacct ingest ncu` prints for one catalog GPU.
#include <cstdint>
#include <string>

#include "bwacct/ingest_nsight.h"
#include "fuzz_common.h"
#include "fuzz_gpu.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = bwacct::fuzz::as_text(data, size);
    bwacct::fuzz::accept_rejection([&] {
        const bwacct::NcuProfile profile = bwacct::parse_ncu_csv(text, "fuzz.csv");
        bwacct::fuzz::check(!profile.kernels.empty(), "a profile without kernels was accepted");
        (void)bwacct::ncu_device_name(profile);
        (void)bwacct::ncu_report(profile, "fuzz.csv", bwacct::fuzz::one_gpu());
    });
    return 0;
}
