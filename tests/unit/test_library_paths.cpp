// Where libcupti is looked for (issue 15: it was dlopened by soname only, which a plain toolkit
// install does not put on the library path).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "library_paths.h"

namespace bwacct::measure {
namespace {

std::vector<std::string> with_env(const std::map<std::string, std::string>& vars) {
    return cupti_candidates([&](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    });
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(LibraryPaths, SonameFirstThenTheToolkitsDirectories) {
    const std::vector<std::string> c = with_env({});
    ASSERT_GE(c.size(), 3u);
    EXPECT_EQ(c[0], "libcupti.so.13") << "the loader's own search path comes first";
    EXPECT_TRUE(has(c, "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"));
}

TEST(LibraryPaths, CudaHomeIsTriedBeforeTheDefaultToolkit) {
    const std::vector<std::string> c = with_env({{"CUDA_HOME", "/opt/cuda-13.0/"}});
    const auto home = std::find(c.begin(), c.end(), "/opt/cuda-13.0/extras/CUPTI/lib64/libcupti.so.13");
    const auto fallback = std::find(c.begin(), c.end(), "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
    ASSERT_NE(home, c.end()) << "a trailing slash is dropped";
    ASSERT_NE(fallback, c.end());
    EXPECT_LT(home, fallback);
}

}  // namespace
}  // namespace bwacct::measure
