// Kernel tracing stays out of the timed samples (issue 15 item 6). CUPTI cannot run without a GPU, so
// this checks the structure that guarantees it: the CUDA backend opens a CUPTI Activity session
// (KernelActivity) only inside trace_one_run, around one extra, untimed run. Before the fix the GEMM
// and attention measurements held one open across screening, warm-up and every timed sample.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(TracingScope, KernelActivityIsOpenedOnlyAroundOneUntimedRun) {
    const fs::path cuda = fs::path(BWACCT_TEST_DATA).parent_path().parent_path() / "src" / "measure" / "cuda";
    ASSERT_TRUE(fs::is_directory(cuda)) << cuda;
    int files = 0;
    for (const auto& e : fs::directory_iterator(cuda)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() != ".cpp" && e.path().extension() != ".cu")
            continue;
        ++files;
        const std::string text = read_all(e.path());
        const std::size_t opened = text.find("KernelActivity activity");
        if (name == "cupti_activity.cpp") {
            const std::size_t in_trace = text.find("void trace_one_run(");
            ASSERT_NE(in_trace, std::string::npos) << "trace_one_run is defined in cupti_activity.cpp";
            EXPECT_GT(opened, in_trace) << "the only session is the one trace_one_run opens";
            EXPECT_EQ(text.find("KernelActivity activity", opened + 1), std::string::npos);
        } else {
            EXPECT_EQ(opened, std::string::npos) << name << " opens a CUPTI session itself: trace with trace_one_run";
        }
    }
    EXPECT_GE(files, 5) << "the CUDA backend's sources were found";
}

}  // namespace
