// The calibration cache: measured roofs per GPU UUID in one JSON file, written atomically (temp file
// + rename) so concurrent writers never leave a torn file; an unreadable file is ignored with a
// warning and rewritten by the next `bwacct calibrate`.
#pragma once
#include <optional>
#include <string>

#include "backend.h"
#include "bwacct/measurement.h"

namespace bwacct::measure {

// --cache, else $BWACCT_CACHE, else $XDG_CACHE_HOME/bwacct/calibration.json (XDG_CACHE_HOME absolute),
// else $HOME/.cache/bwacct/calibration.json; empty when none of these is set (then there is no cache:
// reading finds no entry; never a path at the root of the file system).
std::string calibration_path(const std::string& option_value);
// The same for writing (`bwacct calibrate`): throws InputError("--cache", ...) saying how to give a
// path when calibration_path finds none.
std::string calibration_path_to_write(const std::string& option_value);

// The entry for `uuid`, or nullopt (no file, no entry, or an unreadable file: then `warning` says so).
std::optional<Calibration> load_calibration(const std::string& path, const std::string& uuid, std::string& warning);

// Measures the roofs on `b`: HBM copy and triad over arrays of array_bytes, or smaller when the GPU
// runs out of memory (hbm_fitting; a note says so) (the better bandwidth, bytes = reads + writes), a bf16 GEMM 8192³ (TFLOP/s at
// the median) and dependent empty kernels on a stream (µs per kernel at the median). measured_at is stamped by the caller (ISO
// 8601 UTC).
Calibration run_calibration(Backend& b, std::uint64_t array_bytes, const SamplePolicy& p, const std::string& measured_at);

// Adds or replaces the entry for c.uuid, keeping the others, under an exclusive lock on
// "<path>.lock" (concurrent calibrations lose no entry), written to a temporary file, flushed to
// disk and renamed over the cache (readers never see a torn file). Returns a warning when the old
// file was unreadable (it is then replaced by one holding only this entry), else "". Throws
// MeasureError when the file cannot be written.
std::string store_calibration(const std::string& path, const Calibration& c);

}  // namespace bwacct::measure
