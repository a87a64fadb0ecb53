// In-place collectives: a measurement option only. The cost model must not change, and the command
// reports the choice as the "in_place" parameter.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../src/cli/app.h"
#include "bwacct/ops.h"

using namespace bwacct;

TEST(InPlace, CostIsTheSameAsOutOfPlace) {
    for (CollectiveKind k : {CollectiveKind::allreduce, CollectiveKind::allgather, CollectiveKind::reducescatter,
                             CollectiveKind::broadcast, CollectiveKind::reduce}) {
        CollectiveDesc out;
        out.kind = k;
        out.size_bytes = 8 << 20;
        out.ranks = 8;
        CollectiveDesc in = out;
        in.in_place = true;
        const Cost a = collective_cost(out), b = collective_cost(in);
        EXPECT_EQ(a.bytes_read, b.bytes_read) << collective_name(k);
        EXPECT_EQ(a.bytes_written, b.bytes_written) << collective_name(k);
        EXPECT_EQ(a.flops, b.flops) << collective_name(k);
        ASSERT_TRUE(a.collective.has_value());
        ASSERT_TRUE(b.collective.has_value());
    }
}

namespace {

std::string run(std::vector<std::string> args) {
    args.insert(args.begin(), "bwacct");
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    testing::internal::CaptureStdout();
    const int rc = cli::run_app(static_cast<int>(argv.size()), argv.data());
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_EQ(rc, 0) << out;
    return out;
}

}  // namespace

TEST(InPlace, CommandReportsTheParameter) {
    const std::string in = run({"allgather", "--bytes", "1M", "--ranks", "2", "--in-place", "--format", "jsonl"});
    EXPECT_NE(in.find("\"in_place\":true"), std::string::npos) << in;
    const std::string out = run({"allgather", "--bytes", "1M", "--ranks", "2", "--format", "jsonl"});
    EXPECT_NE(out.find("\"in_place\":false"), std::string::npos) << out;
}

// alltoall and sendrecv have no in-place form in NCCL: the option does not exist there (exit 2, one
// line naming it), while the same command without it runs.
TEST(InPlace, AlltoallAndSendrecvDoNotOfferIt) {
    for (const char* op : {"alltoall", "sendrecv"}) {
        std::vector<std::string> args = {"bwacct", op, "--bytes", "1M", "--ranks", "2", "--in-place"};
        std::vector<char*> argv;
        for (std::string& a : args)
            argv.push_back(a.data());
        testing::internal::CaptureStdout();
        testing::internal::CaptureStderr();
        const int rc = cli::run_app(static_cast<int>(argv.size()), argv.data());
        const std::string out = testing::internal::GetCapturedStdout();
        const std::string err = testing::internal::GetCapturedStderr();
        EXPECT_EQ(rc, 2) << op;
        EXPECT_TRUE(out.empty()) << out;
        EXPECT_NE(err.find("--in-place"), std::string::npos) << err;
        args.pop_back();
        EXPECT_NE(run(std::vector<std::string>(args.begin() + 1, args.end())).find(op), std::string::npos) << op;
    }
}
