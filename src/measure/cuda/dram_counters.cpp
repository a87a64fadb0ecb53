// CUPTI Range Profiler session for DRAM bytes, following NVIDIA's range_profiling sample (CUDA 12.6+):
// profiler initialize, device support check, chip name and counter availability, a host object that
// builds the config image for the metrics, range profiler enable, counter data image, set config,
// start / run / stop until every pass is submitted, decode, evaluate each range, and tear-down.
#include "dram_counters.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "../dynlib.h"
#include "../library_paths.h"
#include "timing.h"

namespace bwacct::measure::cuda {
namespace {

constexpr const char* kMetrics[] = {"dram__bytes_read.sum", "dram__bytes_write.sum"};
constexpr std::size_t kMaxRanges = 64;  // auto range: one range per kernel of the run
constexpr int kMaxPasses = 16;          // kernel replay submits every pass within one start/stop

struct CuptiProfilerApi {
    DynLib lib{cupti_candidates(), kCuptiHint, false};
    DynLib driver{{"libcuda.so.1", "libcuda.so"}, "install the NVIDIA driver"};
#define BWACCT_CUPTI_SYM(name) decltype(&::name) name = lib.sym<decltype(&::name)>(#name)
    BWACCT_CUPTI_SYM(cuptiGetResultString);
    BWACCT_CUPTI_SYM(cuptiProfilerInitialize);
    BWACCT_CUPTI_SYM(cuptiProfilerDeInitialize);
    BWACCT_CUPTI_SYM(cuptiProfilerDeviceSupported);
    BWACCT_CUPTI_SYM(cuptiProfilerGetCounterAvailability);
    BWACCT_CUPTI_SYM(cuptiDeviceGetChipName);
    BWACCT_CUPTI_SYM(cuptiProfilerHostInitialize);
    BWACCT_CUPTI_SYM(cuptiProfilerHostDeinitialize);
    BWACCT_CUPTI_SYM(cuptiProfilerHostConfigAddMetrics);
    BWACCT_CUPTI_SYM(cuptiProfilerHostGetConfigImageSize);
    BWACCT_CUPTI_SYM(cuptiProfilerHostGetConfigImage);
    BWACCT_CUPTI_SYM(cuptiProfilerHostEvaluateToGpuValues);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerEnable);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerDisable);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerGetCounterDataSize);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerCounterDataImageInitialize);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerSetConfig);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerStart);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerStop);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerDecodeData);
    BWACCT_CUPTI_SYM(cuptiRangeProfilerGetCounterDataInfo);
#undef BWACCT_CUPTI_SYM
    decltype(&::cuCtxGetCurrent) cuCtxGetCurrent = driver.sym<decltype(&::cuCtxGetCurrent)>("cuCtxGetCurrent");
    decltype(&::cuCtxGetDevice) cuCtxGetDevice = driver.sym<decltype(&::cuCtxGetDevice)>("cuCtxGetDevice");
};

// CUPTI could not profile here: the message is the one note the measurement gets.
class Unavailable : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

void cupti_check(const CuptiProfilerApi& api, CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS)
        return;
    const char* text = nullptr;
    if (api.cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr)
        text = "unknown CUPTI error";
    switch (r) {
        case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
            throw Unavailable(fmt::format(
                "DRAM bytes not measured: GPU performance counters are restricted to administrators (ERR_NVGPUCTRPERM; {}: "
                "{}); run as root or load the driver with NVreg_RestrictProfilingToAdminUsers=0",
                what, text));
        case CUPTI_ERROR_NOT_SUPPORTED:
        case CUPTI_ERROR_NOT_COMPATIBLE:
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
            throw Unavailable(
                fmt::format("DRAM bytes not measured: CUPTI range profiling is not supported here ({}: {})", what, text));
        default:
            throw Unavailable(fmt::format("DRAM bytes not measured: {} failed: {}", what, text));
    }
}

// A CUPTI parameter block: zeroed, with its structSize set.
template <class P>
P params(std::size_t struct_size) {
    P p{};
    p.structSize = struct_size;
    return p;
}

const char* level_name(CUpti_Profiler_Support_Level l) {
    switch (l) {
        case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED:
            return "unsupported";
        case CUPTI_PROFILER_CONFIGURATION_DISABLED:
            return "disabled";
        case CUPTI_PROFILER_CONFIGURATION_SUPPORTED:
            return "supported";
        default:
            return "unknown";
    }
}

// The profiler state, torn down in reverse order on every path (errors during tear-down ignored).
class Session {
public:
    explicit Session(const CuptiProfilerApi& api) : api_(api) {}
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    ~Session() {
        if (object != nullptr) {
            auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
            p.pRangeProfilerObject = object;
            (void)api_.cuptiRangeProfilerDisable(&p);
        }
        if (host != nullptr) {
            auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
            p.pHostObject = host;
            (void)api_.cuptiProfilerHostDeinitialize(&p);
        }
        if (initialized) {
            auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
            (void)api_.cuptiProfilerDeInitialize(&p);
        }
    }
    bool initialized = false;
    CUpti_Profiler_Host_Object* host = nullptr;
    CUpti_RangeProfiler_Object* object = nullptr;

private:
    const CuptiProfilerApi& api_;
};

struct Counts {
    double read = 0, written = 0;
    std::size_t ranges = 0, passes = 0;
};

Counts profile(const CuptiProfilerApi& api, int device, const std::function<void()>& run_once) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree (context creation)");
    CUcontext ctx = nullptr;
    CUdevice dev = 0;
    if (api.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == nullptr || api.cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        throw Unavailable("DRAM bytes not measured: no current CUDA context for CUPTI (cuCtxGetCurrent)");

    Session s(api);
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    cupti_check(api, api.cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    s.initialized = true;

    auto sup = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
    sup.cuDevice = dev;
    sup.api = CUPTI_PROFILER_RANGE_PROFILING;
    cupti_check(api, api.cuptiProfilerDeviceSupported(&sup), "cuptiProfilerDeviceSupported");
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        throw Unavailable(fmt::format(
            "DRAM bytes not measured: CUPTI range profiling is not supported on this GPU (architecture {}, SLI {}, vGPU {}, "
            "confidential computing {}, CMP {}, WSL {})",
            level_name(sup.architecture), level_name(sup.sli), level_name(sup.vGpu), level_name(sup.confidentialCompute),
            level_name(sup.cmp), level_name(sup.wsl)));

    auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = static_cast<std::size_t>(dev);
    cupti_check(api, api.cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
    const std::string chip_name = chip.pChipName != nullptr ? chip.pChipName : "";

    auto avail = params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = ctx;
    cupti_check(api, api.cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability (size)");
    std::vector<std::uint8_t> availability(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    cupti_check(api, api.cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");

    auto hinit = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    hinit.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hinit.pChipName = chip_name.c_str();
    hinit.pCounterAvailabilityImage = availability.data();
    cupti_check(api, api.cuptiProfilerHostInitialize(&hinit), "cuptiProfilerHostInitialize");
    s.host = hinit.pHostObject;

    std::vector<const char*> metrics(std::begin(kMetrics), std::end(kMetrics));
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = s.host;
    add.ppMetricNames = metrics.data();
    add.numMetrics = metrics.size();
    cupti_check(api, api.cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
    auto csize = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    csize.pHostObject = s.host;
    cupti_check(api, api.cuptiProfilerHostGetConfigImageSize(&csize), "cuptiProfilerHostGetConfigImageSize");
    std::vector<std::uint8_t> config(csize.configImageSize);
    auto cimage = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    cimage.pHostObject = s.host;
    cimage.configImageSize = config.size();
    cimage.pConfigImage = config.data();
    cupti_check(api, api.cuptiProfilerHostGetConfigImage(&cimage), "cuptiProfilerHostGetConfigImage");

    auto enable = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = ctx;
    cupti_check(api, api.cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
    s.object = enable.pRangeProfilerObject;

    auto dsize = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    dsize.pRangeProfilerObject = s.object;
    dsize.pMetricNames = metrics.data();
    dsize.numMetrics = metrics.size();
    dsize.maxNumOfRanges = kMaxRanges;
    dsize.maxNumRangeTreeNodes = static_cast<std::uint32_t>(kMaxRanges);
    cupti_check(api, api.cuptiRangeProfilerGetCounterDataSize(&dsize), "cuptiRangeProfilerGetCounterDataSize");
    std::vector<std::uint8_t> counter_data(dsize.counterDataSize, 0);
    auto dinit = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    dinit.pRangeProfilerObject = s.object;
    dinit.counterDataSize = counter_data.size();
    dinit.pCounterData = counter_data.data();
    cupti_check(api, api.cuptiRangeProfilerCounterDataImageInitialize(&dinit), "cuptiRangeProfilerCounterDataImageInitialize");

    auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    set.pRangeProfilerObject = s.object;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = counter_data.size();
    set.pCounterDataImage = counter_data.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kMaxRanges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    cupti_check(api, api.cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");

    Counts c;
    bool submitted = false;
    while (!submitted) {
        if (c.passes == kMaxPasses)
            throw Unavailable(fmt::format("DRAM bytes not measured: CUPTI asked for more than {} passes", kMaxPasses));
        auto start = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
        start.pRangeProfilerObject = s.object;
        cupti_check(api, api.cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
        run_once();
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (profiled run)");
        auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
        stop.pRangeProfilerObject = s.object;
        cupti_check(api, api.cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
        submitted = stop.isAllPassSubmitted != 0;
        ++c.passes;
    }

    auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = s.object;
    cupti_check(api, api.cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
    if (decode.numOfRangeDropped != 0)
        throw Unavailable(
            fmt::format("DRAM bytes not measured: CUPTI dropped {} of the run's kernel ranges (more than {} kernels in one run?)",
                        decode.numOfRangeDropped, kMaxRanges));

    auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    cupti_check(api, api.cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
    if (info.numTotalRanges == 0)
        throw Unavailable("DRAM bytes not measured: CUPTI recorded no kernel in the profiled run");
    for (std::size_t r = 0; r < info.numTotalRanges; ++r) {
        double values[std::size(kMetrics)] = {};
        auto eval =
            params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        eval.pHostObject = s.host;
        eval.pCounterDataImage = counter_data.data();
        eval.counterDataImageSize = counter_data.size();
        eval.rangeIndex = r;
        eval.ppMetricNames = metrics.data();
        eval.numMetrics = metrics.size();
        eval.pMetricValues = values;
        cupti_check(api, api.cuptiProfilerHostEvaluateToGpuValues(&eval), "cuptiProfilerHostEvaluateToGpuValues");
        c.read += values[0];
        c.written += values[1];
    }
    c.ranges = info.numTotalRanges;
    return c;
}

std::string bytes_text(std::uint64_t b) {
    return fmt::format("{} B ({:.3f} GiB)", b, static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace

void add_dram_bytes(Timing& t, int device, std::uint64_t lower_read, std::uint64_t lower_written,
                    const std::function<void()>& run_once) {
    const CuptiProfilerApi* api = nullptr;
    try {
        static const CuptiProfilerApi* loaded = new CuptiProfilerApi();  // kept loaded, as the other GPU libraries
        api = loaded;
    } catch (const MeasureError& e) {
        t.notes.push_back(std::string("DRAM bytes not measured: ") + e.what());
        return;
    }
    Counts c;
    try {
        c = profile(*api, device, run_once);
    } catch (const Unavailable& e) {
        t.notes.push_back(e.what());
        return;
    }
    if (!std::isfinite(c.read) || !std::isfinite(c.written) || c.read < 0 || c.written < 0) {
        t.notes.push_back("DRAM bytes not measured: CUPTI returned an invalid value");
        return;
    }
    const auto read = static_cast<std::uint64_t>(std::llround(c.read));
    const auto written = static_cast<std::uint64_t>(std::llround(c.written));
    t.dram_bytes_read = read;
    t.dram_bytes_written = written;
    t.notes.push_back(fmt::format(
        "DRAM bytes measured by CUPTI: read {}, written {} (lower bound: {}, {}); one extra untimed run, {} kernel range(s), "
        "{} pass(es)",
        bytes_text(read), bytes_text(written), bytes_text(lower_read), bytes_text(lower_written), c.ranges, c.passes));
}

}  // namespace bwacct::measure::cuda
