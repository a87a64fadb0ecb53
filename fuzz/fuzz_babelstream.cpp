// BabelStream output (text, --csv) and SuperBench gpu-stream output: parse_babelstream, then the
// report `bwacct ingest babelstream` prints for one catalog GPU.
#include <cstdint>
#include <string>

#include "bwacct/ingest_babelstream.h"
#include "fuzz_common.h"
#include "fuzz_gpu.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = bwacct::fuzz::as_text(data, size);
    bwacct::fuzz::accept_rejection([&] {
        const bwacct::BabelStreamFile file = bwacct::parse_babelstream(text, "fuzz.txt");
        bwacct::fuzz::check(!file.rows.empty() || !file.gs_rows.empty(), "a file without result rows was accepted");
        (void)bwacct::babelstream_device_name(file);
        (void)bwacct::babelstream_report(file, "fuzz.txt", bwacct::fuzz::one_gpu());
    });
    return 0;
}
