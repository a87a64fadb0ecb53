// Where the GPU libraries loaded at run time are looked for. libcupti is not on the default library
// path of a plain toolkit install (it lives in extras/CUPTI/lib64), so besides its soname the toolkit's
// own directories are tried: $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda. The error when none loads
// lists every place tried (dynlib.h).
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace bwacct::measure {

// The file names to dlopen for libcupti, in order; `env` looks a variable up (nullptr: unset).
std::vector<std::string> cupti_candidates(const std::function<const char*(const char*)>& env);
std::vector<std::string> cupti_candidates();

inline constexpr const char* kCuptiHint =
    "install the CUDA toolkit's CUPTI (cuda-cupti-13-0), set CUDA_HOME to the toolkit, or put libcupti.so.13 on "
    "LD_LIBRARY_PATH";

}  // namespace bwacct::measure
