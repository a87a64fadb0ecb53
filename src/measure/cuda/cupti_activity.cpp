// CUPTI Activity API: concurrent-kernel records (name, start, end) delivered in buffers that CUPTI
// asks for and hands back through two callbacks, grouped by kernel name. One recording at a time per
// process; the callbacks are registered once, for the process, and each session enables and
// disables the kernel activity kind, so sessions can be opened and closed any number of times.
#include "cupti_activity.h"

#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "../dynlib.h"
#include "../library_paths.h"

namespace bwacct::measure::cuda {
namespace {

struct CuptiApi {
    DynLib lib{cupti_candidates(), kCuptiHint, false};
#define BWACCT_CUPTI_SYM(name) decltype(&::name) name = lib.sym<decltype(&::name)>(#name)
    BWACCT_CUPTI_SYM(cuptiGetVersion);
    BWACCT_CUPTI_SYM(cuptiGetResultString);
    BWACCT_CUPTI_SYM(cuptiActivityRegisterCallbacks);
    BWACCT_CUPTI_SYM(cuptiActivityEnable);
    BWACCT_CUPTI_SYM(cuptiActivityDisable);
    BWACCT_CUPTI_SYM(cuptiActivityFlushAll);
    BWACCT_CUPTI_SYM(cuptiActivityGetNextRecord);
    BWACCT_CUPTI_SYM(cuptiActivityGetNumDroppedRecords);
#undef BWACCT_CUPTI_SYM
};

// What one recording collects; filled by the completion callback under Shared::mutex.
struct Collected {
    std::map<std::string, KernelRecord> kernels;  // by mangled name
    std::uint64_t incomplete = 0;
    std::size_t dropped = 0;
};

// Process-wide state, never destroyed: CUPTI may deliver a buffer from its own thread or at exit.
struct Shared {
    std::mutex mutex;
    const CuptiApi* api = nullptr;  // set once loaded; the library is never unloaded
    bool callbacks_registered = false;
    Collected* active = nullptr;  // the recording session's records, if one is recording
};
Shared& shared() {
    static Shared* s = new Shared();
    return *s;
}

constexpr std::size_t kBufferBytes = 4u << 20;  // per activity buffer
constexpr std::size_t kBufferAlign = 8;         // CUPTI requires 8-byte aligned buffers

std::string result_text(const CuptiApi& api, CUptiResult r) {
    const char* s = nullptr;
    if (api.cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == nullptr)
        return "CUPTI error " + std::to_string(static_cast<int>(r));
    return s;
}

std::string why_inert(const CuptiApi& api, CUptiResult r, const char* call) {
    switch (r) {
        case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
            return std::string("CUPTI kernel activity not permitted (insufficient privileges in ") + call +
                   "): no per-kernel records";
        case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
            return "CUPTI kernel activity unavailable: another profiler (Nsight Systems/Compute?) holds CUPTI";
        case CUPTI_ERROR_NOT_SUPPORTED:
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
            return std::string("CUPTI kernel activity not supported on this device or driver (") + call + ")";
        default:
            return std::string("CUPTI kernel activity unavailable: ") + call + " failed: " + result_text(api, r);
    }
}

std::string demangle(const char* name) {
    int status = 0;
    char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || out == nullptr) {
        std::free(out);
        return name;
    }
    std::string s(out);
    std::free(out);
    return s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
    *size = *buffer != nullptr ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    Shared& s = shared();
    if (buffer == nullptr)
        return;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.active != nullptr && s.api != nullptr && valid > 0) {
            Collected* impl = s.active;
            CUpti_Activity* record = nullptr;
            while (s.api->cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
                if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
                    continue;
                // start, end and name sit at the same offsets in every kernel record version so far
                // (CUpti_ActivityKernel2 ... 10); CUDA 13's is CUpti_ActivityKernel10.
                const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
                if (k->start == 0 || k->end < k->start || k->name == nullptr) {
                    ++impl->incomplete;
                    continue;
                }
                KernelRecord& r = impl->kernels[k->name];
                r.count += 1;
                r.total_us += static_cast<double>(k->end - k->start) * 1e-3;
            }
            size_t dropped = 0;
            if (s.api->cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS)
                impl->dropped += dropped;
        }
    }
    std::free(buffer);
}

}  // namespace

struct KernelActivity::Impl {
    std::string note;
    bool recording = false;
    Collected collected;  // written by the callback while recording
    std::vector<KernelRecord> result;
};

KernelActivity::KernelActivity() : impl_(std::make_unique<Impl>()) {
    const CuptiApi* api = nullptr;
    try {
        static const CuptiApi* loaded = new CuptiApi();  // a failed load throws and is retried next time
        api = loaded;
    } catch (const MeasureError& e) {
        impl_->note = std::string("CUPTI kernel activity unavailable: ") + e.what();
        return;
    }
    Shared& s = shared();
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.api = api;
        if (s.active != nullptr) {
            impl_->note = "CUPTI kernel activity unavailable: another recording is already active in this process";
            return;
        }
        s.active = &impl_->collected;  // claimed before any CUPTI call, released on every failure below
    }
    auto release = [&s] {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.active = nullptr;
    };
    // CUPTI calls may invoke the callbacks on this thread: never hold the mutex across them.
    if (!s.callbacks_registered) {
        const CUptiResult r = api->cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (r != CUPTI_SUCCESS) {
            release();
            impl_->note = why_inert(*api, r, "cuptiActivityRegisterCallbacks");
            return;
        }
        s.callbacks_registered = true;  // only ever written by the session holding s.active
    }
    const CUptiResult r = api->cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) {
        release();
        impl_->note = why_inert(*api, r, "cuptiActivityEnable");
        return;
    }
    impl_->recording = true;
}

KernelActivity::~KernelActivity() {
    try {
        (void)stop();
    } catch (...) {
        // Destructors do not throw; the records are dropped.
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.active == &impl_->collected)
            s.active = nullptr;
    }
}

std::vector<KernelRecord> KernelActivity::stop() {
    if (!impl_->recording)
        return impl_->result;
    Shared& s = shared();
    const CuptiApi& api = *s.api;
    // Records of finished kernels first, then stop recording and drain whatever is left (records of
    // kernels still running then come back incomplete and are counted, not summed).
    (void)api.cuptiActivityFlushAll(0);
    (void)api.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    (void)api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    impl_->recording = false;
    Collected got;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.active == &impl_->collected)
            s.active = nullptr;
        std::swap(got, impl_->collected);
    }
    std::vector<KernelRecord> out;
    for (auto& [name, r] : got.kernels) {
        r.name = demangle(name.c_str());
        out.push_back(std::move(r));
    }
    std::sort(out.begin(), out.end(), [](const KernelRecord& a, const KernelRecord& b) { return a.total_us > b.total_us; });
    if (got.dropped > 0 || got.incomplete > 0)
        impl_->note = "CUPTI kernel activity: " + std::to_string(got.dropped) + " records dropped, " +
                      std::to_string(got.incomplete) + " incomplete (kernels still running at stop?)";
    impl_->result = out;
    return out;
}

const std::string& KernelActivity::note() const { return impl_->note; }

void trace_one_run(Timing& t, const std::function<void()>& run_once) {
    KernelActivity activity;
    run_once();
    t.kernels = activity.stop();
    if (!activity.note().empty())
        t.notes.push_back(activity.note());
}

}  // namespace bwacct::measure::cuda
