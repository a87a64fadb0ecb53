// Which GPU this process measures on. One rank per GPU, as nccl-tests runs: the MPI local rank picks
// the device, modulo the devices this process can see, so that launchers which give each rank its own
// CUDA_VISIBLE_DEVICES (Slurm --gpus-per-task=1 or --gpu-bind, a wrapper script) still work: there
// every rank sees one GPU, index 0. BWACCT_DEVICE overrides, as NCCL_TESTS_DEVICE does for nccl-tests.
#pragma once

namespace bwacct::measure {

// The device index for a process with MPI local rank `local_rank` that sees `visible` GPUs;
// `override_text` is BWACCT_DEVICE (null or empty: not set). Throws MeasureError when the override
// is not a whole number below `visible`.
int choose_device(int local_rank, int visible, const char* override_text);

// How many GPUs the simulated backend pretends this process sees: BWACCT_SIMULATE_GPUS, default 8.
int simulated_visible_devices();

}  // namespace bwacct::measure
