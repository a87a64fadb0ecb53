#include "library_paths.h"

#include <cstdlib>

namespace bwacct::measure {

std::vector<std::string> cupti_candidates(const std::function<const char*(const char*)>& env) {
    std::vector<std::string> out = {"libcupti.so.13", "libcupti.so"};
    std::vector<std::string> roots;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = env(var); v != nullptr && *v != '\0')
            roots.emplace_back(v);
    roots.emplace_back("/usr/local/cuda");
    for (std::string root : roots) {
        while (root.size() > 1 && root.back() == '/')
            root.pop_back();
        for (const char* dir : {"/extras/CUPTI/lib64/", "/lib64/", "/targets/x86_64-linux/lib/"})
            out.push_back(root + dir + "libcupti.so.13");
    }
    return out;
}

std::vector<std::string> cupti_candidates() {
    return cupti_candidates([](const char* name) -> const char* { return std::getenv(name); });
}

}  // namespace bwacct::measure
