// The CUDA backend: opened for one GPU (a rank's local GPU under MPI). Compiled only when CMake
// finds the CUDA toolkit (BWACCT_HAVE_CUDA); the CUDA runtime is linked statically and cuBLASLt,
// NCCL, CUPTI and NVML are loaded with dlopen, so the binary starts on machines without them.
#pragma once
#include <memory>

#include "../backend.h"

namespace bwacct::measure::cuda {

// Throws MeasureError with the reason when there is no usable GPU (no driver: cudaErrorInsufficientDriver;
// a driver without a GPU: cudaErrorNoDevice; index out of range).
std::unique_ptr<Backend> open(int local_rank);  // the device: choose_device (device_choice.h)

}  // namespace bwacct::measure::cuda
