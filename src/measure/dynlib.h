// Run-time loading of the GPU libraries (cuBLASLt, NCCL, CUPTI, NVML) and of Open MPI: one bwacct
// binary starts on any machine, and a measurement that needs a missing library says which one and
// how to get it.
#pragma once
#include <dlfcn.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"

namespace bwacct::measure {

class DynLib {
public:
    // Tries each file name in turn (e.g. "libcublasLt.so.13", "libcublasLt.so"); `hint` says how to
    // install the library when none loads. `global`: RTLD_GLOBAL, for a library whose own plugins
    // resolve symbols against it (Open MPI's components).
    DynLib(std::initializer_list<const char*> names, std::string hint, bool global = false)
        : DynLib(std::vector<std::string>(names.begin(), names.end()), std::move(hint), global) {}
    DynLib(const std::vector<std::string>& names, const std::string& hint, bool global) {
        std::string tried;
        for (const std::string& n : names) {
            handle_ = ::dlopen(n.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
            if (handle_ != nullptr) {
                name_ = n;
                return;
            }
            tried += (tried.empty() ? "" : ", ") + n;
        }
        throw MeasureError("cannot load " + tried + ": " + hint);
    }
    DynLib(const DynLib&) = delete;
    DynLib& operator=(const DynLib&) = delete;
    ~DynLib() {
        if (handle_ != nullptr)
            ::dlclose(handle_);
    }

    // The symbol as a function pointer of type F; throws MeasureError when the library lacks it.
    template <typename F>
    F sym(const char* symbol) const {
        void* p = ::dlsym(handle_, symbol);
        if (p == nullptr)
            throw MeasureError(name_ + " has no symbol " + symbol + " (library too old?)");
        return reinterpret_cast<F>(p);
    }
    // The symbol, or nullptr when the library lacks it (an optional entry point).
    template <typename F>
    F try_sym(const char* symbol) const {
        return reinterpret_cast<F>(::dlsym(handle_, symbol));
    }
    const std::string& name() const { return name_; }

private:
    void* handle_ = nullptr;
    std::string name_;
};

}  // namespace bwacct::measure
