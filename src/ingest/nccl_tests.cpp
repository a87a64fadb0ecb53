#include <array>

#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"
#include "bwacct/text_file.h"
#include "nccl_tests_parts.h"

namespace bwacct {

NcclLog parse_nccl_tests(const std::string& text, const std::string& origin) {
    if (looks_binary(text))
        throw InputError(origin, "is a binary file; expected nccl-tests output (text) or its -J JSON");
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{')
        return detail::parse_nccl_json(text, origin);
    return detail::parse_nccl_text(text, origin);
}

std::optional<CollectiveKind> collective_from_name(std::string_view name) {
    // Longest names first: "reduce_scatter" before "reduce", "all_reduce" before "reduce".
    static constexpr std::array<std::pair<std::string_view, CollectiveKind>, 15> kNames{{
        {"reduce_scatter", CollectiveKind::reducescatter},
        {"reducescatter", CollectiveKind::reducescatter},
        {"all_reduce", CollectiveKind::allreduce},
        {"allreduce", CollectiveKind::allreduce},
        {"all_gather", CollectiveKind::allgather},
        {"allgather", CollectiveKind::allgather},
        {"alltoall", CollectiveKind::alltoall},
        {"all_to_all", CollectiveKind::alltoall},
        {"broadcast", CollectiveKind::broadcast},
        {"sendrecv", CollectiveKind::sendrecv},
        {"send_recv", CollectiveKind::sendrecv},
        {"reduce", CollectiveKind::reduce},
        {"bcast", CollectiveKind::broadcast},
        {"gather", CollectiveKind::gather},  // after all_gather and reduce_scatter, which hold these words
        {"scatter", CollectiveKind::scatter},
    }};
    std::string lower(name);
    for (char& c : lower)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    // Only the last path component names the test.
    if (const std::size_t slash = lower.rfind('/'); slash != std::string::npos)
        lower = lower.substr(slash + 1);
    for (const auto& [key, kind] : kNames)
        if (lower.find(key) != std::string::npos)
            return kind;
    return std::nullopt;
}

}  // namespace bwacct
