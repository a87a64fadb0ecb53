// Internal to src/ingest/nccl_tests_*.cpp: the two readers behind parse_nccl_tests.
#pragma once
#include <string>
#include <string_view>

#include "bwacct/ingest_nccl.h"

namespace bwacct::detail {

NcclLog parse_nccl_text(const std::string& text, const std::string& origin);
NcclLog parse_nccl_json(const std::string& text, const std::string& origin);
// "34.27" → 34.27 with 2 decimals; "1.2e+07" → 1.2e7 with −6 decimals; false for anything else.
bool parse_printed_number(std::string_view s, PrintedNumber& out);
// The line without launcher tags and CR (nccl_tests_text.cpp): "(head, rank=0, pid=3808)
// [1,0]<stdout>:#  Rank 0" → "#  Rank 0"; "-1[1,0]<stdout>:  85.70" → "-1  85.70".
std::string strip_launcher_tags(std::string_view line);

}  // namespace bwacct::detail
