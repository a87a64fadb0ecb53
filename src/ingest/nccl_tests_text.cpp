// nccl-tests text output. Every layout in tests/data/nccl/ and nccl-tests' util.cu:
//   2.x (2020+):  size count type redop root  time algbw busbw #wrong  time algbw busbw #wrong [timestamp]
//   older:        size count type redop       time algbw busbw error   time algbw busbw error
//   all_gather:   size count type             time algbw busbw error   time algbw busbw error
// The column header line ("#  size  count  type ...") fixes the layout when present; without it the
// token count does. Around the rows: "#" comment lines (the "# Rank" lines give the rank count),
// "NCCL INFO" lines, markdown indentation and mpirun --tag-output prefixes ("[1,0]<stdout>:").
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>

#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"
#include "nccl_tests_parts.h"

namespace bwacct::detail {
namespace {

std::vector<std::string_view> split_ws(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            ++i;
        const std::size_t start = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            ++i;
        if (i > start)
            out.push_back(s.substr(start, i - start));
    }
    return out;
}

std::string_view trim_left(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    return s;
}

bool is_digits(std::string_view s) {
    if (s.empty())
        return false;
    for (const char c : s)
        if (c < '0' || c > '9')
            return false;
    return true;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
    if (!is_digits(s))
        return false;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

// "[1,0]<stdout>:" or "[1,3]<stderr>:" at the start of a line (mpirun --tag-output).
std::string_view strip_mpi_tag(std::string_view s) {
    if (s.empty() || s.front() != '[')
        return s;
    const std::size_t close = s.find(']');
    if (close == std::string_view::npos)
        return s;
    const std::string_view inside = s.substr(1, close - 1);
    const std::size_t comma = inside.find(',');
    if (comma == std::string_view::npos || !is_digits(inside.substr(0, comma)) || !is_digits(inside.substr(comma + 1)))
        return s;
    std::string_view rest = s.substr(close + 1);
    for (const std::string_view tag : {std::string_view("<stdout>:"), std::string_view("<stderr>:")})
        if (rest.substr(0, tag.size()) == tag)
            return rest.substr(tag.size());
    return s;
}

// Where the columns are: index of the out-of-place time (the in-place time is 4 further), and of
// the optional columns. 0 = absent (size is always 0, count 1, type 2).
struct Layout {
    std::size_t redop = 0, root = 0, time = 0;
    std::size_t tokens = 0;  // tokens of a full row
    std::string name;
};

// From the header line's tokens after '#': size count type [redop] [root] time algbw busbw #wrong|error ...
std::optional<Layout> layout_from_header(const std::vector<std::string_view>& tok) {
    if (tok.size() < 11 || tok[0] != "size" || tok[1] != "count" || tok[2] != "type")
        return std::nullopt;
    Layout l;
    std::size_t i = 3;
    if (tok[i] == "redop")
        l.redop = i++;
    if (tok[i] == "root")
        l.root = i++;
    if ((tok[i] != "time" && tok[i] != "cputime") || i + 8 > tok.size())
        return std::nullopt;
    l.time = i;
    l.tokens = i + 8;
    l.name = l.root ? "2.x: redop, root, #wrong" : l.redop ? "redop, error column" : "no redop or root column";
    return l;
}

// Without a header: the token count and which tokens are numbers (the layouts above).
std::optional<Layout> layout_from_row(const std::vector<std::string_view>& tok) {
    PrintedNumber ignored;
    auto num = [&](std::size_t i) { return i < tok.size() && parse_printed_number(tok[i], ignored); };
    Layout l;
    if (tok.size() == 11 && num(3)) {
        l.time = 3;
    } else if (tok.size() == 12 && !num(3) && num(4)) {
        l.redop = 3;
        l.time = 4;
    } else if (tok.size() >= 13 && !num(3) && num(4) && num(5)) {
        l.redop = 3;
        l.root = 4;
        l.time = 5;
    } else {
        return std::nullopt;
    }
    l.tokens = l.time + 8;
    l.name = "no column header; layout from the row";
    return l;
}

std::optional<NcclResult> read_result(const std::vector<std::string_view>& tok, std::size_t at) {
    NcclResult r;
    if (at + 2 >= tok.size())
        return std::nullopt;
    if (!parse_printed_number(tok[at], r.time_us) || !parse_printed_number(tok[at + 1], r.algbw_GBps) ||
        !parse_printed_number(tok[at + 2], r.busbw_GBps))
        return std::nullopt;
    if (at + 3 < tok.size()) {
        PrintedNumber wrong;
        if (parse_printed_number(tok[at + 3], wrong))
            r.wrong = wrong.value;
        else if (tok[at + 3] != "N/A")
            return std::nullopt;
    }
    return r;
}

}  // namespace

bool parse_printed_number(std::string_view s, PrintedNumber& out) {
    if (s.empty())
        return false;
    std::string_view mantissa = s;
    int exponent = 0;
    if (const std::size_t e = s.find_first_of("eE"); e != std::string_view::npos) {
        mantissa = s.substr(0, e);
        std::string_view ex = s.substr(e + 1);
        if (!ex.empty() && ex.front() == '+')
            ex.remove_prefix(1);
        const auto [p, ec] = std::from_chars(ex.data(), ex.data() + ex.size(), exponent);
        if (ec != std::errc() || p != ex.data() + ex.size() || exponent < -300 || exponent > 300)
            return false;
    }
    const std::string_view digits = !mantissa.empty() && mantissa.front() == '-' ? mantissa.substr(1) : mantissa;
    const std::size_t dot = digits.find('.');
    const std::string_view whole = digits.substr(0, dot);
    const std::string_view frac = dot == std::string_view::npos ? std::string_view{} : digits.substr(dot + 1);
    if (!is_digits(whole) || (dot != std::string_view::npos && !is_digits(frac)))
        return false;
    double v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v))
        return false;
    out.text = std::string(s);
    out.value = v;
    out.decimals = static_cast<int>(frac.size()) - exponent;
    return true;
}

NcclLog parse_nccl_text(const std::string& text_in, const std::string& origin) {
    NcclLog log;
    std::optional<Layout> header;
    std::string layout_name;
    std::string_view text = text_in;
    int line_no = 0;
    std::size_t unreadable = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++line_no;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        // Markdown indentation, then an MPI tag, then the program's own padding.
        line = trim_left(strip_mpi_tag(trim_left(line)));
        if (line.empty())
            continue;
        if (line.front() == '#') {
            const auto tok = split_ws(line.substr(1));
            std::uint64_t v = 0;
            if (tok.size() >= 2 && tok[0] == "Rank" && parse_u64(tok[1], v)) {
                log.ranks.insert(v);
                for (std::size_t i = 2; i + 1 < tok.size(); ++i)
                    if (tok[i] == "on") {
                        log.hosts.insert(std::string(tok[i + 1]));
                        break;
                    }
                if (log.device_name.empty())
                    if (const std::size_t br = line.find(']'); br != std::string_view::npos)
                        log.device_name = std::string(trim_left(line.substr(br + 1)));
            } else if (tok.size() >= 4 && tok[0] == "Collective" && tok[1] == "test" && tok[2] == "starting:") {
                log.program = std::string(tok[3]);
            } else if (tok.size() >= 4 && tok[0] == "nThread" && parse_u64(tok[1], v)) {
                log.header_threads = v;
                if (tok[2] == "nGpus" && parse_u64(tok[3], v))
                    log.header_gpus = v;
            } else if (tok.size() >= 5 && tok[0] == "Avg" && tok[1] == "bus" && tok[2] == "bandwidth") {
                PrintedNumber avg;
                if (parse_printed_number(tok[4], avg))
                    log.avg_busbw_GBps = avg.value;
            } else if (auto l = layout_from_header(tok)) {
                header = l;
            }
            continue;
        }
        if (line.find("NCCL INFO") != std::string_view::npos || line.find("NCCL WARN") != std::string_view::npos)
            continue;
        const auto tok = split_ws(line);
        NcclRow row;
        if (tok.size() < 4 || !parse_u64(tok[0], row.size) || !parse_u64(tok[1], row.count))
            continue;  // command lines, code fences, other programs' output
        // The header's layout; a row that does not fit it (logs pasted together) by its own tokens.
        auto fits = [&](const std::optional<Layout>& l) { return l && (tok.size() >= l->tokens || tok.size() == l->tokens - 4); };
        const std::optional<Layout> layout = fits(header) ? header : layout_from_row(tok);
        // A full row, or (trace replay) a row with only the in-place result.
        const bool full = layout && tok.size() >= layout->tokens;
        const bool in_place_only = layout && tok.size() == layout->tokens - 4;
        if (!full && !in_place_only) {
            ++unreadable;
            if (log.warnings.size() < 20)
                log.warnings.push_back(
                    fmt::format("line {}: not an nccl-tests row: {}", line_no, std::string(line).substr(0, 120)));
            continue;
        }
        layout_name = layout->name;
        row.line = line_no;
        row.type = std::string(tok[2]);
        if (layout->redop)
            row.redop = std::string(tok[layout->redop]);
        if (layout->root) {
            PrintedNumber root;
            if (parse_printed_number(tok[layout->root], root) && root.decimals == 0 && std::abs(root.value) < 1e18)
                row.root = static_cast<long long>(root.value);
        }
        if (full) {
            row.out_of_place = read_result(tok, layout->time);
            row.in_place = read_result(tok, layout->time + 4);
        } else {
            row.in_place = read_result(tok, layout->time);
        }
        if ((full && !row.out_of_place) || !row.in_place) {
            ++unreadable;
            if (log.warnings.size() < 20)
                log.warnings.push_back(fmt::format("line {}: unreadable numbers: {}", line_no, std::string(line).substr(0, 120)));
            continue;
        }
        log.rows.push_back(std::move(row));
    }
    if (log.rows.empty())
        throw InputError(origin, unreadable > 0 ? fmt::format("{} lines look like nccl-tests rows but none could be read; "
                                                              "expected nccl-tests output (all_reduce_perf ... > log)",
                                                              unreadable)
                                                : "holds no nccl-tests result row; expected nccl-tests output "
                                                  "(all_reduce_perf ... > log) or its -J JSON");
    if (unreadable > log.warnings.size())
        log.warnings.push_back(fmt::format("{} more unreadable lines", unreadable - log.warnings.size()));
    log.format = fmt::format("nccl-tests text ({})", layout_name);
    return log;
}

}  // namespace bwacct::detail
