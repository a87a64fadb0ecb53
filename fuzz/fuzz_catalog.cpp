// The GPU catalog JSON (configs/gpus.json, --gpu-file): Catalog::parse, then the look-ups the CLI
// makes on a parsed catalog (select "all", match a device name).
#include <cstdint>
#include <string>

#include "bwacct/catalog.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = bwacct::fuzz::as_text(data, size);
    bwacct::fuzz::accept_rejection([&] {
        const bwacct::Catalog catalog = bwacct::Catalog::parse(text, "--gpu-file fuzz.json");
        (void)catalog.ids();
        (void)catalog.match("NVIDIA H100 80GB HBM3");
        for (const bwacct::GpuSpec* gpu : catalog.select("all", "--gpu"))
            bwacct::fuzz::check(gpu != nullptr, "select returned a null entry");
    });
    return 0;
}
