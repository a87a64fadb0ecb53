#include "device_choice.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "backend.h"

namespace bwacct::measure {
namespace {

// A non-negative whole number below `limit`, or -1.
int whole_below(const char* text, int limit) {
    const std::string s(text);
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        return -1;
    const int v = std::stoi(s);
    return v < limit ? v : -1;
}

}  // namespace

int choose_device(int local_rank, int visible, const char* override_text) {
    if (visible <= 0)
        throw MeasureError("no CUDA GPU is visible to this process (CUDA_VISIBLE_DEVICES applies)");
    if (override_text != nullptr && *override_text != '\0') {
        const int v = whole_below(override_text, visible);
        if (v < 0)
            throw MeasureError(
                fmt::format("BWACCT_DEVICE='{}': expected a GPU index from 0 to {} ({} visible to this "
                            "process; CUDA_VISIBLE_DEVICES applies)",
                            override_text, visible - 1, visible));
        return v;
    }
    return (local_rank < 0 ? 0 : local_rank) % visible;
}

int simulated_visible_devices() {
    const char* text = std::getenv("BWACCT_SIMULATE_GPUS");
    if (text == nullptr || *text == '\0')
        return 8;
    const int v = whole_below(text, 1'000'000);
    if (v <= 0)
        throw MeasureError(fmt::format("BWACCT_SIMULATE_GPUS='{}': expected a positive whole number of GPUs", text));
    return v;
}

}  // namespace bwacct::measure
