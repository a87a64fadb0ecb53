// Shared by the libFuzzer targets (fuzz/fuzz_<parser>.cpp). A parser may reject its input only with
// bwacct::InputError or bwacct::OverflowError (exit 2 in the CLI); anything else escaping, a crash, a
// sanitizer report, a leak, a timeout or a broken invariant (check() below) is a finding.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bwacct/error.h"

namespace bwacct::fuzz {

// The input as text, as the readers hand it to the parsers (read_input_file keeps every byte).
inline std::string as_text(const std::uint8_t* data, std::size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `parse` and treats the accepted rejections as a normal outcome.
template <class F>
void accept_rejection(F&& parse) {
    try {
        parse();
    } catch (const InputError&) {
    } catch (const OverflowError&) {
    }
}

// A parser accepted the input but broke one of its documented guarantees (a silently wrong
// number): report it and abort, which libFuzzer records as a crash with the input saved.
inline void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
        std::abort();
    }
}

inline bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace bwacct::fuzz
