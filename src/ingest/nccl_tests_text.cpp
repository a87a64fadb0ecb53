// nccl-tests text output. Every layout in tests/data/nccl/ and nccl-tests' util.cu:
//   2.x (2020+):  size count type redop root  time algbw busbw #wrong  time algbw busbw #wrong [timestamp]
//   older:        size count type redop       time algbw busbw error   time algbw busbw error
//   all_gather:   size count type             time algbw busbw error   time algbw busbw error
//   before 2018:  bytes N type [op] [root]    time algbw busbw res     [time algbw busbw res]   (times in ms)
// The column header line ("#  size  count  type ...") fixes the layout when present; without it the
// token count does. Around the rows: "#" comment lines (the "# Rank" lines, the header), "NCCL
// INFO/WARN" lines, markdown indentation and fences, CRLF, and launcher tags anywhere in a line
// (strip_launcher_tags). A line that lost its "#" (markdown) is still read as the header line it is.
// The file is split into runs (include/bwacct/ingest_nccl.h).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"
#include "bwacct/text_file.h"
#include "inline_markup.h"
#include "nccl_tests_parts.h"
#include "text_columns.h"

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

// A markdown code fence: "```" or "~~~" (with an info string or not), a line of backticks alone (a lone "`" a
// converter left around a pasted block), or an HTML tag alone ("<pre>", "</code>", "<details>").
bool is_fence(std::string_view line) {
    const std::string_view t = trim_left(line);
    if (t.substr(0, 3) == "```" || t.substr(0, 3) == "~~~")
        return true;
    std::size_t end = t.size();
    while (end > 0 && (t[end - 1] == ' ' || t[end - 1] == '\t' || t[end - 1] == '\r'))
        --end;
    const std::string_view body = t.substr(0, end);
    if (body.size() >= 3 && body.front() == '<' && body.back() == '>' && body.find('>') == body.size() - 1)
        return true;
    return !body.empty() && body.find_first_not_of('`') == std::string_view::npos;
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

bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

// "<stdout>:", "<stderr>:", "<stddiag>:" at s[i]: a stream tag. Returns its length, 0 if none.
std::size_t stream_tag_at(std::string_view s, std::size_t i) {
    if (i >= s.size() || s[i] != '<')
        return 0;
    std::size_t j = i + 1;
    while (j < s.size() && j - i < 16 && s[j] >= 'a' && s[j] <= 'z')
        ++j;
    if (j == i + 1 || j + 1 >= s.size() || s[j] != '>' || s[j + 1] != ':')
        return 0;
    return j + 2 - i;
}

// "[1,0]<stdout>:" (mpirun --tag-output: job and rank in brackets, then a stream tag) at s[i]; or a bare rank label
// "[0]" followed by a blank, a colon or the line's end (MPICH's -prepend-rank, Intel MPI's -l), which like the stream
// tag is repeated inside a row where the test flushed ("-1[0]    1626.5"). A device's "[0x8d]", a bus id
// "[0000:05:00]" or a time "[12:00:01]" is not all digits.
std::size_t rank_tag_at(std::string_view s, std::size_t i) {
    if (i >= s.size() || s[i] != '[')
        return 0;
    std::size_t j = i + 1;
    bool digit = false;
    while (j < s.size() && j - i < 40 && ((s[j] >= '0' && s[j] <= '9') || s[j] == ',')) {
        digit = digit || s[j] != ',';
        ++j;
    }
    if (!digit || j >= s.size() || s[j] != ']')
        return 0;
    if (const std::size_t stream = stream_tag_at(s, j + 1))
        return j + 1 + stream - i;
    if (j + 1 == s.size() || s[j + 1] == ' ' || s[j + 1] == '\t' || s[j + 1] == '\r')
        return j + 1 - i;
    return j + 1 < s.size() && s[j + 1] == ':' ? j + 2 - i : 0;
}

// "(head, rank=0, pid=3808)" (Ray, SkyPilot: a parenthesised group of names and key=value pairs,
// at least one of them key=value) at s[i].
std::size_t keyvalue_tag_at(std::string_view s, std::size_t i) {
    if (i >= s.size() || s[i] != '(')
        return 0;
    const std::size_t close = s.substr(i, 201).find(')');  // bounded: a line of '(' stays linear
    if (close == std::string_view::npos)
        return 0;
    const std::string_view inside = s.substr(i + 1, close - 1);
    bool pair = false;
    std::size_t k = 0;
    while (k < inside.size()) {
        while (k < inside.size() && (inside[k] == ' ' || inside[k] == ','))
            ++k;
        const std::size_t start = k;
        while (k < inside.size() && is_ident_char(inside[k]))
            ++k;
        if (k == start) {
            if (k < inside.size())
                return 0;  // a character no tag holds
            break;
        }
        if (k < inside.size() && inside[k] == '=') {
            ++k;
            const std::size_t value = k;
            while (k < inside.size() && (is_ident_char(inside[k]) || inside[k] == ':' || inside[k] == '/'))
                ++k;
            if (k == value)
                return 0;
            pair = true;
        }
    }
    return pair ? close + 1 : 0;
}

// A time or date stamp: "2024-05-01", "12:34:56.789", "2024-05-01T12:34:56Z", "[12:34:56]",
// "2024/05/01": digits in groups joined by at least two of the same separator.
bool is_timestamp(std::string_view t) {
    while (!t.empty() && (t.front() == '[' || t.front() == '('))
        t.remove_prefix(1);
    while (!t.empty() && (t.back() == ']' || t.back() == ')' || t.back() == ',' || t.back() == ':'))
        t.remove_suffix(1);
    std::size_t colons = 0, dashes = 0, slashes = 0, digits = 0;
    for (const char c : t) {
        if (c >= '0' && c <= '9')
            ++digits;
        else if (c == ':')
            ++colons;
        else if (c == '-')
            ++dashes;
        else if (c == '/')
            ++slashes;
        else if (c != '.' && c != 'T' && c != 'Z' && c != '+' && c != ',')
            return false;
    }
    return digits >= 4 && t.front() >= '0' && t.front() <= '9' && (colons >= 2 || dashes >= 2 || slashes >= 2);
}

}  // namespace

// Launcher decorations removed wherever they stand, by their shape, not by launcher:
//   - stream tags with or without a bracketed rank pair: "[1,0]<stdout>:", "<stderr>:" (mpirun
//     --tag-output repeats them inside a row where the test flushed: "-1[1,0]<stdout>:  85.70");
//   - parenthesised groups holding key=value pairs: "(head, rank=0, pid=3808)" (Ray, SkyPilot);
//   - at the start of the line, repeatedly: a "word: " prefix (srun -l "0: ", pdsh "node1: ") and
//     time stamps ("2024-05-01 12:34:56.789", "[12:34:56]").
// Tags are cut out without a space: the launcher inserts them between the program's own bytes.
std::string strip_launcher_tags(std::string_view line) {
    // A syslog/journald prefix: "Nov 25 12:00:01 host ident[pid]: " (journalctl, /var/log/syslog): month, day, time,
    // host, and the program's tag ending in ':'. Read before the tags below, which would take "[pid]:" for a rank label.
    {
        static constexpr std::array<std::string_view, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
        // journalctl -o short-iso (and short-iso-precise) writes the time as one ISO 8601 word instead:
        // "2024-11-25T12:00:01+0000 host ident[pid]: ".
        const std::vector<std::string_view> tok = split_ws(line.substr(0, std::min<std::size_t>(line.size(), 160)));
        std::size_t host = 0;
        if (tok.size() >= 6 && std::find(kMonths.begin(), kMonths.end(), tok[0]) != kMonths.end() && tok[1].size() <= 2 &&
            is_digits(tok[1]) && is_timestamp(tok[2]))
            host = 3;
        else if (tok.size() >= 4 && tok[0].size() >= 19 && tok[0][4] == '-' && tok[0][10] == 'T' && is_timestamp(tok[0]))
            host = 1;
        if (host > 0 && tok[host + 1].size() >= 2 && tok[host + 1].back() == ':') {
            const std::string_view ident = tok[host + 1];
            bool tag = true;
            for (const char c : ident.substr(0, ident.size() - 1))
                tag = tag && (is_ident_char(c) || c == '[' || c == ']' || c == '.' || c == '-' || c == '/');
            if (tag)
                line.remove_prefix(static_cast<std::size_t>(ident.data() + ident.size() - line.data()));
        }
    }
    std::string out;
    out.reserve(line.size());
    for (std::size_t i = 0; i < line.size();) {
        if (line[i] == '\r') {
            ++i;
            continue;
        }
        std::size_t n = rank_tag_at(line, i);
        if (n == 0)
            n = stream_tag_at(line, i);
        if (n == 0)
            n = keyvalue_tag_at(line, i);
        if (n > 0) {
            i += n;
            continue;
        }
        out += line[i++];
    }
    std::string_view s = out;
    for (;;) {
        s = trim_left(s);
        std::size_t end = 0;
        while (end < s.size() && s[end] != ' ' && s[end] != '\t')
            ++end;
        const std::string_view first = s.substr(0, end);
        if (end > 0 && end < s.size() && first.size() >= 2 && first.back() == ':') {
            bool word = true;
            for (const char c : first.substr(0, first.size() - 1))
                word = word && is_ident_char(c);
            if (word) {
                s.remove_prefix(end);
                continue;
            }
        }
        if (end > 0 && is_timestamp(first)) {
            s.remove_prefix(end);
            continue;
        }
        break;
    }
    return std::string(s);
}

namespace {

// Where the columns are: index of the out-of-place time (the in-place time is 4 further), and of
// the optional columns. 0 = absent (size is always 0, count 1, type 2).
struct Layout {
    std::size_t redop = 0, root = 0, time = 0;
    // Columns of one placement's result: time algbw busbw #wrong, and with nccl-tests' per-iteration report
    // (util.cu's per_iter_timing) i_min i_max i_p99 i_cv% after them; the in-place result follows the out-of-place one.
    std::size_t per_place = 4;
    std::size_t tokens = 0;  // tokens of a full row
    std::string name;
    bool error_column = false;  // older nccl-tests: an "error" column (the largest deviation), not "#wrong"
    // nccl-tests before its 2018 rewrite (NCCL 2.0-2.2) and NCCL 1's own tests: "bytes N type ...", time printed in ms
    // ("%7.3f" of deltaSec * 1.0E3), read as us (x 1000).
    bool time_ms = false;
    // nccl-tests -C 1: the time column is "cputime", the host's launch loop (in us), not the collective's time on the GPU
    // (its algbw still comes from the GPU time, common.cu's getBw(deltaSec)). The op time is size / algbw; the printed
    // cputime is kept as the result's cputime_us. Warned.
    bool cputime = false;
    bool out_of_place_only = false;  // the early broadcast: one result per row ("bytes N type root time algbw busbw res")
    // Where the header's out-of-place and in-place results end, in characters after the end of its first column ("size"):
    // a row holding one result is the one it lines up with. -1: not known (no header line).
    long out_of_place_end = -1, in_place_end = -1;
};

// Characters from the end of `first` to the end of `t` (two tokens of one line).
long end_after(std::string_view first, std::string_view t) {
    return static_cast<long>((t.data() + t.size()) - (first.data() + first.size()));
}

// The early header: "bytes N type [op] [root] time algbw busbw res|delta [time algbw busbw res|delta]" (common.cu's
// PRINT("  %7.3f  %5.2f  %5.2f  %7.0le", deltaSec * 1.0E3, ...) in every test of nccl-tests 2016-2018 and of NCCL 1's
// test/single): the same columns as the older layout, under other names, with times in ms.
std::optional<Layout> early_layout_from_header(const std::vector<std::string_view>& tok) {
    if (tok.size() < 7 || tok[0] != "bytes" || tok[1] != "N" || tok[2] != "type")
        return std::nullopt;
    Layout l;
    std::size_t i = 3;
    if (tok[i] == "op")
        l.redop = i++;
    if (tok[i] == "root")
        l.root = i++;
    const auto result_at = [&](std::size_t at) {
        return at + 4 <= tok.size() && tok[at] == "time" && tok[at + 1] == "algbw" && tok[at + 2] == "busbw" &&
               (tok[at + 3] == "res" || tok[at + 3] == "delta");
    };
    if (!result_at(i))
        return std::nullopt;
    l.time = i;
    l.out_of_place_only = !result_at(i + 4);
    l.tokens = i + (l.out_of_place_only ? 4 : 8);
    l.error_column = true;  // "res"/"delta": the largest deviation from the expected result
    l.time_ms = true;
    l.name = "before 2018: bytes N, times in ms";
    return l;
}

// From the header line's tokens after '#': size count type [redop] [root] time algbw busbw #wrong|error ...
std::optional<Layout> layout_from_header(const std::vector<std::string_view>& tok) {
    if (auto early = early_layout_from_header(tok))
        return early;
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
    l.cputime = tok[i] == "cputime";
    // The in-place result starts at the header's second time column (after the per-iteration columns
    // i_min i_max i_p99 i_cv% when the run printed them).
    for (std::size_t k = i + 4; k < tok.size(); ++k)
        if (tok[k] == tok[i]) {
            l.per_place = k - i;
            break;
        }
    // 4: time algbw busbw #wrong; 5: and -B's "#bitdiff" (bitwise repeatability); 8 or 9: and -I's per-iteration
    // i_min i_max i_p99 i_cv% (util.cu writeResultHeader).
    if (l.per_place != 4 && l.per_place != 5 && l.per_place != 8 && l.per_place != 9)
        return std::nullopt;
    l.tokens = i + 2 * l.per_place;
    l.error_column = tok[i + 3] == "error";
    // Named by the columns it has: older broadcast/reduce headers print a root and an "error" column without a redop.
    if (l.redop && l.root && !l.error_column)
        l.name = "2.x: redop, root, #wrong";
    else if (!l.redop && !l.root)
        l.name = "no redop or root column";
    else
        l.name =
            fmt::format("{}{}{}", l.redop ? "redop, " : "", l.root ? "root, " : "", l.error_column ? "error column" : "#wrong");
    if (l.per_place == 5 || l.per_place == 9)
        l.name += ", bitwise #bitdiff column";
    if (l.per_place >= 8)
        l.name += ", per-iteration columns";
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
        l.error_column = true;  // the layout with a redop and no root is the older one
    } else if (tok.size() >= 13 && !num(3) && num(4) && num(5)) {
        l.redop = 3;
        l.root = 4;
        l.time = 5;
        // The tokens before a time stamp ("2026-09-26 10:00:00", 2 tokens that are not numbers): 13 for
        // time algbw busbw #wrong per placement, 15 with -B's #bitdiff after #wrong, 21 with the per-iteration
        // report's i_min i_max i_p99 i_cv%, 23 with both.
        const std::size_t n = tok.size() >= 15 && !num(tok.size() - 1) && !num(tok.size() - 2) ? tok.size() - 2 : tok.size();
        l.per_place = n == 15 ? 5 : n == 21 ? 8 : n == 23 ? 9 : 4;
    } else {
        return std::nullopt;
    }
    l.tokens = l.time + 2 * l.per_place;
    l.name = "no column header; layout from the row";
    return l;
}

// nccl-tests -C 1: the printed time is the host's launch loop (cputimeSec), while algbw = size / deltaSec / 1e9 is from
// the GPU time (common.cu). The GPU time is size / algbw / 1e3 us; the printed cputime is kept as cputime_us. Where
// algbw prints as 0 (or the size is 0) the GPU time has no bound: 0 with decimals 2, which the accounting leaves out.
void gpu_time_from_algbw(NcclResult& r, std::uint64_t size) {
    r.cputime_us = r.time_us;
    if (size == 0 || !(r.algbw_GBps.value - 0.5 * std::pow(10.0, -r.algbw_GBps.decimals) > 0)) {
        r.time_us = PrintedNumber{0, 2, "0.00"};
        return;
    }
    const double t = static_cast<double>(size) / r.algbw_GBps.value / 1e3;
    r.time_us = PrintedNumber{t, 6, fmt::format("{:.6f}", t)};
}

std::optional<NcclResult> read_result(const std::vector<std::string_view>& tok, std::size_t at, const Layout& layout) {
    NcclResult r;
    r.max_error = layout.error_column;
    if (at + 2 >= tok.size())
        return std::nullopt;
    if (!parse_printed_number(tok[at], r.time_us) || !parse_printed_number(tok[at + 1], r.algbw_GBps) ||
        !parse_printed_number(tok[at + 2], r.busbw_GBps))
        return std::nullopt;
    // nccl-tests never prints a negative time or bandwidth: such a value is another column (a root
    // of -1) read under the wrong layout, e.g. a row cut short by a truncated log.
    if (r.time_us.value < 0 || r.algbw_GBps.value < 0 || r.busbw_GBps.value < 0)
        return std::nullopt;
    // Nor a time of a bare "0": times carry decimals ("%7.2f", early "%7.3f"; whole only from 10^6 us on). Such a token
    // is a root of 0 read under a layout without a root column (a 2.x reduce row under an older header).
    if (r.time_us.value == 0 && r.time_us.decimals <= 0)
        return std::nullopt;
    if (at + 3 < tok.size()) {
        PrintedNumber wrong;
        if (parse_printed_number(tok[at + 3], wrong))
            r.wrong = wrong.value;
        else if (tok[at + 3] != "N/A")
            return std::nullopt;
    }
    if (layout.time_ms) {
        r.time_us.value *= 1000;
        r.time_us.decimals -= 3;
    }
    return r;
}

// Whether a printed bandwidth shows every digit nccl-tests prints at its magnitude, so that a value cut short ("78.7" of
// "78.71", "1234" of "1234.7") is told from a whole one. util.cu's getFloatStr(bw, 6): "%6.2f" below 1000, "%6.1f" below
// 10^4, "%6.0f" below 10^6, then "%6.0e"; older versions "%6.2f" at every magnitude. Bounds are the printed values
// (999.996 prints "1000.00" under "%6.2f").
bool whole_bandwidth(const PrintedNumber& p) {
    const double v = p.value;
    return p.decimals == 2 || (p.decimals == 1 && v >= 999.95 && v <= 10000.0) || (p.decimals == 0 && v >= 9999.5 && v <= 1e6) ||
           (p.decimals < 0 && v >= 9.5e5);
}

// A row shorter than its header's that holds the out-of-place result's time, algbw and busbw (and maybe its
// #wrong and part of the in-place result): that result, when it is whole. A busbw that ends the line must show every
// digit nccl-tests prints at its magnitude (whole_bandwidth), else the cut went through it ("78.7" of "78.71"). Nothing
// for a row that holds the in-place result's columns alone (tokens − per_place: read as an in-place-only row).
std::optional<NcclResult> cut_after_out_of_place(const std::vector<std::string_view>& tok, const Layout& header) {
    if (tok.size() < header.time + 3 || tok.size() >= header.tokens || tok.size() == header.tokens - header.per_place)
        return std::nullopt;
    // A whole row of another layout (an older log's "redop ... error" row pasted under a 2.x header) is not a cut one;
    // a row whose own layout would read a root of -1 as its time is not of that layout, nor one whose own layout's time
    // is the header's root column holding a whole number below 10^5 (a root, whatever its value: "3" is also a time of
    // that layout, but nccl-tests prints a time with decimals below 10^5 us).
    const auto root_under_header = [&](std::size_t at) {
        PrintedNumber p;
        return header.root && at == header.root && parse_printed_number(tok[at], p) && p.decimals == 0 &&
               p.text.find_first_of("eE") == std::string::npos && p.value >= -1 && p.value < 1e5;
    };
    if (const auto own = layout_from_row(tok);
        own && own->tokens == tok.size() && !root_under_header(own->time) && read_result(tok, own->time, *own))
        return std::nullopt;
    const std::vector<std::string_view> first(tok.begin(),
                                              tok.begin() + static_cast<std::ptrdiff_t>(std::min(tok.size(), header.time + 4)));
    auto r = read_result(first, header.time, header);
    if (!r || !whole_bandwidth(r->algbw_GBps) || (tok.size() == header.time + 3 && !whole_bandwidth(r->busbw_GBps)))
        return std::nullopt;
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

namespace {

struct CommandLine {
    std::string program;
    std::optional<std::uint64_t> procs;          // the launcher's -np
    std::optional<std::uint64_t> threads, gpus;  // the test's own -t/--nthreads and -g/--ngpus
};

// The program a command line runs ("./build/all_reduce_perf", "all_reduce_perf_mpi") and the process
// count its launcher was given before it (-np 16, -n 16, --np 16, --ntasks=16). Options after the
// program are the test's own (its -n is iterations): -t/--nthreads and -g/--ngpus give its ranks per
// process, as the "# nThread 1 nGpus 8" header line does.
// A command quoted in prose keeps its quotes on its first and last words ("NCCL `all_reduce_perf -b 8M
// ... -n 30` result", "'./alltoall_perf -g 8'"): the words without them.
std::string_view unquoted(std::string_view t) {
    constexpr std::string_view kQuotes = "`'\"";
    while (!t.empty() && kQuotes.find(t.front()) != std::string_view::npos)
        t.remove_prefix(1);
    while (!t.empty() && kQuotes.find(t.back()) != std::string_view::npos)
        t.remove_suffix(1);
    return t;
}

bool read_command_line(const std::vector<std::string_view>& tok_in, CommandLine& cmd) {
    std::vector<std::string_view> tok;
    tok.reserve(tok_in.size());
    for (const std::string_view t : tok_in)
        tok.push_back(unquoted(t));
    for (std::size_t i = 0; i < tok.size(); ++i) {
        std::string_view name = tok[i];
        if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos)
            name = name.substr(slash + 1);
        if (name.size() < 6 || (name.find("_perf") == std::string_view::npos))
            continue;
        if (!collective_from_name(name))
            continue;
        cmd.program = std::string(name);
        for (std::size_t j = 0; j < i; ++j) {
            std::uint64_t v = 0;
            const std::string_view t = tok[j];
            if ((t == "-np" || t == "-n" || t == "--np" || t == "--n" || t == "--ntasks") && j + 1 < i &&
                parse_u64(tok[j + 1], v))
                cmd.procs = v;
            else if (t.substr(0, 9) == "--ntasks=" && parse_u64(t.substr(9), v))
                cmd.procs = v;
        }
        for (std::size_t j = i + 1; j + 1 < tok.size(); ++j) {
            std::uint64_t v = 0;
            if (!parse_u64(tok[j + 1], v) || v == 0 || v > 4096)
                continue;
            if (tok[j] == "-g" || tok[j] == "--ngpus")
                cmd.gpus = v;
            else if (tok[j] == "-t" || tok[j] == "--nthreads")
                cmd.threads = v;
        }
        return true;
    }
    return false;
}

bool is_rank_line(const std::vector<std::string_view>& tok, bool hashed) {
    std::uint64_t v = 0;
    if (tok.size() < 2 || tok[0] != "Rank" || !parse_u64(tok[1], v))
        return false;
    if (hashed)
        return true;
    for (const std::string_view t : tok)
        if (t == "Pid" || t == "device" || t == "Group")
            return true;
    return false;
}

// NCCL's communicator init line (NCCL_DEBUG=INFO), after "NCCL INFO": "comm 0x7f.. rank 7 nranks 16
// cudaDev 7 busId a01d0 - Init COMPLETE" (2.x; newer NCCL writes "nRanks" and a "ncclCommInitRank"
// prefix). The communicator's size, or nothing for any other INFO line: the teardown's "- Destroy
// COMPLETE" and "- Abort COMPLETE" lines name the same communicator after the run's rows, not the next run's.
std::optional<std::uint64_t> comm_init_nranks(const std::vector<std::string_view>& tok) {
    // The communicator's init lines: "... - Init COMPLETE" (or "Init START"), and NCCL 2.19+'s topology line "comm 0x...
    // rank 13 nRanks 16 nNodes 2 localRanks 8 localRank 5 MNNVL 0", printed during init before it completes.
    bool init = false;
    for (std::size_t i = 1; i < tok.size(); ++i)
        init = init || ((tok[i] == "COMPLETE" || tok[i] == "START") && tok[i - 1] == "Init");
    for (std::size_t i = 0; i + 3 < tok.size(); ++i) {
        std::uint64_t rank = 0, n = 0;
        if (tok[i] == "rank" && parse_u64(tok[i + 1], rank) && (tok[i + 2] == "nranks" || tok[i + 2] == "nRanks") &&
            parse_u64(tok[i + 3], n) && rank < n && (init || (i + 4 < tok.size() && tok[i + 4] == "nNodes")))
            return n;
    }
    return std::nullopt;
}

// The data types nccl-tests and rccl-tests print in a row's third column (test_typenames; older
// versions' char/int).
bool is_type_name(std::string_view t) {
    static constexpr std::array<std::string_view, 18> kTypes{"int8",     "uint8",    "int32",  "uint32",   "int64",  "uint64",
                                                             "half",     "float",    "double", "bfloat16", "f8e4m3", "f8e5m2",
                                                             "fp8_e4m3", "fp8_e5m2", "char",   "int",      "uint",   "bf16"};
    return std::find(kTypes.begin(), kTypes.end(), t) != kTypes.end();
}

// Where a result row starts among a line's tokens: 0 when it starts the line (whatever its type
// name), else the first "size count type" with a known type name after other tokens (a prefix), or 0
// when there is none.
std::size_t row_start(const std::vector<std::string_view>& tok) {
    if (tok.size() >= 3 && is_digits(tok[0]) && is_digits(tok[1]) && is_type_name(tok[2]))
        return 0;
    for (std::size_t i = 1; i + 3 < tok.size(); ++i)
        if (is_digits(tok[i]) && is_digits(tok[i + 1]) && is_type_name(tok[i + 2]))
            return i;
    return 0;
}

// An algorithm or protocol name as rccl-tests -A prints it ("RING", "TREE", "COLLNET_DIRECT", "LL128", "SIMPLE"), or
// "N/A": upper-case letters, digits and '_', a letter first.
bool is_algo_word(std::string_view t) {
    if (t == "N/A")
        return true;
    if (t.empty() || t.front() < 'A' || t.front() > 'Z')
        return false;
    return std::all_of(t.begin(), t.end(), [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
}

// A line of nothing but 1 to 3 whole numbers: the start of a result row that was cut (a truncated log).
bool is_row_stub(const std::vector<std::string_view>& tok) {
    if (tok.empty() || tok.size() > 3)
        return false;
    for (const std::string_view t : tok)
        if (!is_digits(t))
            return false;
    return true;
}

// The one collective a markdown heading names ("### All Reduce - 2 Nodes", "## AllToAll results", "### 2. all_gather"),
// as its nccl-tests program name; empty when it names none or several. Words are split at anything but a letter or
// digit and matched alone or joined with the next one or two ("all 2 all", "reduce scatter").
std::string heading_program(std::string_view heading) {
    std::vector<std::string> words;
    std::string w;
    for (const char c : heading) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (!w.empty()) {
            words.push_back(std::move(w));
            w.clear();
        }
    }
    if (!w.empty())
        words.push_back(std::move(w));
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kNames{{
        {"allreduce", "all_reduce_perf"},
        {"allgather", "all_gather_perf"},
        {"reducescatter", "reduce_scatter_perf"},
        {"alltoall", "alltoall_perf"},
        {"all2all", "alltoall_perf"},
        {"broadcast", "broadcast_perf"},
        {"sendrecv", "sendrecv_perf"},
        {"reduce", "reduce_perf"},
        {"gather", "gather_perf"},
        {"scatter", "scatter_perf"},
        {"hypercube", "hypercube_perf"},
    }};
    std::set<std::string_view> found;
    for (std::size_t i = 0; i < words.size();) {
        std::size_t used = 0;
        for (std::size_t len = std::min<std::size_t>(3, words.size() - i); len >= 1 && used == 0; --len) {
            std::string joined;
            for (std::size_t k = 0; k < len; ++k)
                joined += words[i + k];
            for (const auto& [key, program] : kNames)
                if (joined == key) {
                    found.insert(program);
                    used = len;
                    break;
                }
        }
        i += used > 0 ? used : 1;
    }
    return found.size() == 1 ? std::string(*found.begin()) : std::string();
}

// The text of a line that is one markdown bold span and nothing else ("**All Reduce, 2 nodes**", "__alltoall__"); empty
// for any other line.
std::string_view bold_paragraph(std::string_view line) {
    std::size_t b = 0, e = line.size();
    while (b < e && (line[b] == ' ' || line[b] == '\t'))
        ++b;
    while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r'))
        --e;
    line = line.substr(b, e - b);
    if (line.size() <= 4)
        return {};
    const std::string_view mark = line.substr(0, 2);
    if ((mark != "**" && mark != "__") || line.substr(line.size() - 2) != mark)
        return {};
    const std::string_view inner = line.substr(2, line.size() - 4);
    if (inner.find(mark) != std::string_view::npos || inner.front() == ' ' || inner.back() == ' ')
        return {};
    return inner;
}

// Bytes of one element of a type nccl-tests prints (is_type_name); 0 for none.
std::uint64_t type_bytes(std::string_view t) { return nccl_type_bytes(t); }

// busbw / algbw of a row's first result with a bandwidth, as the interval its printed digits allow.
std::optional<std::pair<double, double>> bus_factor_range(const NcclRow& row) {
    for (const std::optional<NcclResult>& r : {row.out_of_place, row.in_place}) {
        if (!r)
            continue;
        const double ha = 0.5 * std::pow(10.0, -r->algbw_GBps.decimals), hb = 0.5 * std::pow(10.0, -r->busbw_GBps.decimals);
        if (r->algbw_GBps.value - ha <= 0)
            continue;
        return std::pair{(r->busbw_GBps.value - hb) / (r->algbw_GBps.value + ha),
                         (r->busbw_GBps.value + hb) / (r->algbw_GBps.value - ha)};
    }
    return std::nullopt;
}

// Whether a row can be one of `program`'s (nccl-tests' *GetCollByteCount and *GetBw):
//   - the reductions print an operation (allreduce, reduce, reduce_scatter; and sendrecv, which prints "sum"), the
//     others "none"; the rooted ones (reduce, broadcast, gather, scatter) a root >= 0, the others -1;
//   - elements per byte: allreduce, reduce, broadcast and sendrecv count the whole buffer (count·typesize = size), the
//     sharded ones (allgather, reduce_scatter, alltoall, gather, scatter, hypercube) one rank's part
//     (count·typesize·n = size, n the ranks);
//   - bus factor busbw/algbw: allreduce 2(n−1)/n (0 for one rank, else in [1, 2)); allgather, reduce_scatter,
//     alltoall, gather and scatter (n−1)/n with the n the elements per byte give; broadcast, reduce, sendrecv and
//     hypercube 1.
// A heading that names a word such as "reduce" or "gather" in prose ("## How to reduce latency"), or a collective
// whose rows are not these ("### All Reduce" over reduce_scatter rows), is not taken for rows it cannot have printed.
bool heading_fits(std::string_view program, const NcclRow& row) {
    if (row.redop.empty() || !row.root)
        return false;
    const bool reduces = program == "all_reduce_perf" || program == "reduce_perf" || program == "reduce_scatter_perf" ||
                         program == "sendrecv_perf";
    const bool rooted =
        program == "reduce_perf" || program == "broadcast_perf" || program == "gather_perf" || program == "scatter_perf";
    if ((row.redop != "none") != reduces || (*row.root >= 0) != rooted)
        return false;
    const std::uint64_t ts = type_bytes(row.type);
    if (row.size == 0 || row.count == 0 || ts == 0)
        return true;  // no elements per byte to compare
    __extension__ using u128 = unsigned __int128;
    const u128 part = static_cast<u128>(row.count) * ts;  // bytes of the printed count
    const bool whole =
        program == "all_reduce_perf" || program == "reduce_perf" || program == "broadcast_perf" || program == "sendrecv_perf";
    if (whole ? part != row.size : (part > row.size || row.size % part != 0))
        return false;
    const auto f = bus_factor_range(row);
    if (!f)
        return true;  // algbw printed as 0: no factor to compare
    const auto holds = [&](double v) { return f->first <= v + 1e-9 && v - 1e-9 <= f->second; };
    if (program == "all_reduce_perf")
        return holds(0) || (f->second >= 1 && f->first < 2);
    if (whole || program == "hypercube_perf")
        return holds(1);
    const double n = static_cast<double>(row.size / part);
    return holds((n - 1) / n);
}

struct TextReader {
    NcclLog log;
    NcclRun run;
    bool closed = false;     // the run printed "# Avg bus bandwidth": a row or header after it starts another
    bool new_cycle = false;  // "# Testing 2 cycle." (-N cycles) since the last row: the sweep repeats in this run
    std::optional<Layout> header;
    // The layout of the last row read by its own tokens (no column header above it): a later row of the run cut short
    // is measured against it as against a header (a paste of rows alone, cut mid-row).
    std::optional<Layout> row_layout;
    std::map<std::uint64_t, std::set<std::string>> rank_processes;  // of the current run
    std::string layout_name;
    std::size_t unreadable = 0;
    std::string first_unreadable;  // why the first unreadable line was not read
    std::size_t unsaid = 0;        // warnings past the first 20
    // NCCL init lines seen after the current run's rows or footer: they belong to the next run.
    std::set<std::uint64_t> pending_comm_nranks;
    // The previous run's last row with bytes, while the current run (which kept its test name when its sweep
    // started again at size 0) has shown no row with bytes to compare with it.
    std::optional<NcclRow> inherited_shape;
    // The current run's test name was copied from the run before it when its sweep started again (no line of its
    // own names it): its "Collective test concluded" footer replaces it.
    bool program_inherited = false;
    // A markdown heading naming one collective, for the next run that names no test (its first row), while only
    // blank lines, fences and the log's own lines ('#' lines, NCCL lines, a command line) follow it.
    std::string heading_program;
    std::string heading_text;
    int heading_line = 0;

    void warn(std::string text) {
        if (log.warnings.size() < 20)
            log.warnings.push_back(std::move(text));
        else
            ++unsaid;
    }
    // A line that looks like a result row but is not read.
    void unreadable_line(std::string text) {
        if (unreadable++ == 0)
            first_unreadable = text;
        warn(std::move(text));
    }

    // nccl-tests' own error report (common.h: "HOST: Test NCCL failure common.cu:958 'error'", "Test CUDA
    // failure", rccl-tests' "Test HIP failure", then " .. HOST pid N: Test failure common.cu:915"): the
    // test stopped there. Said once per run, with the last row it printed before the failure.
    bool failure_said = false;
    void test_failure(std::string_view line, int line_no) {
        if (failure_said)
            return;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.remove_suffix(1);
        failure_said = true;
        const std::string where =
            run.rows.empty() ? std::string("before any result row of its run")
            : closed         ? fmt::format("after its run's footer (line {})", run.last_line)
                             : fmt::format("after the row of {} B on line {}, before the run's footer: the run did not finish",
                                           run.rows.back().size, run.rows.back().line);
        warn(fmt::format("line {}: the test reported a failure {} ({})", line_no, where,
                         std::string(trim_left(line).substr(0, 160))));
    }

    // Why the current run is not read (its rows are dropped with a warning, the other runs read), else empty; and the
    // last such reason, for the refusal of a file with no other run.
    std::string refused;
    std::string last_refusal;

    // A run whose every row's printed algbw is about size / (time read in ms), not size / (time in us): its times are
    // ms though no header says so (early nccl-tests rows pasted without their "bytes N type ..." header). nccl-tests
    // prints algbw = size / time for every collective, so a ratio near 1000 is no other unit. Read as ms, warned.
    // Only rows with an algbw of at least 1.00 are compared (the rounding of smaller ones is too coarse).
    void times_in_ms_by_rows() {
        std::size_t compared = 0;
        for (const NcclRow& row : run.rows)
            for (const std::optional<NcclResult>* res : {&row.out_of_place, &row.in_place}) {
                if (!*res || (*res)->algbw_GBps.value < 1.0 || (*res)->time_us.value <= 0 || row.size == 0)
                    continue;
                const double ratio = static_cast<double>(row.size) / ((*res)->time_us.value * 1e3) / (*res)->algbw_GBps.value;
                if (ratio < 300 || ratio > 3000)
                    return;
                ++compared;
            }
        if (compared == 0)
            return;
        for (NcclRow& row : run.rows)
            for (std::optional<NcclResult>* res : {&row.out_of_place, &row.in_place})
                if (*res) {
                    (*res)->time_us.value *= 1000;
                    (*res)->time_us.decimals -= 3;
                }
        run.times_ms = true;
        warn(
            fmt::format("lines {}-{}: every row's algbw is its size over its time read in ms, not in us (early "
                        "nccl-tests printed ms): times read as ms",
                        run.first_line, run.last_line));
    }

    // Whether a row of the current run was read under its column header: a header names the time's unit ("(us)", or
    // the early "bytes N type ..." header's ms), so the rows' own ratio is not used to rescale them.
    bool rows_under_header = false;

    void finish_run() {
        one_result_said = false;
        if (!run.rows.empty() && !rows_under_header)
            times_in_ms_by_rows();
        rows_under_header = false;
        if (!refused.empty() && !run.rows.empty()) {
            warn(fmt::format("lines {}-{}: {}: not read", run.first_line, run.last_line, refused));
            last_refusal = fmt::format("line {}: {}", run.first_line, refused);
            run.rows.clear();
        }
        refused.clear();
        failure_said = false;
        inherited_shape.reset();
        program_inherited = false;
        if (!run.rows.empty())
            log.runs.push_back(std::move(run));
        run = NcclRun{};
        run.comm_nranks = std::move(pending_comm_nranks);
        pending_comm_nranks.clear();
        rank_processes.clear();
        closed = false;
    }

    void info_line(const std::vector<std::string_view>& tok) {
        if (const auto n = comm_init_nranks(tok))
            (closed || !run.rows.empty() ? pending_comm_nranks : run.comm_nranks).insert(*n);
    }
    // A line that opens a run (header block, test name, rank list, column header, command line): a
    // new run when the current one already has rows.
    void opening(int line_no) {
        if (!run.rows.empty() || closed) {
            finish_run();
            header.reset();
        }
        if (run.first_line == 0)
            run.first_line = line_no;
    }

    // A line NCCL 1's own tests do not print (nccl-tests' nThread, "Collective test starting", "Rank N Group ..." or
    // "size count type" lines) after an NCCL 1 block that printed no row: that block ends there, and the run starts
    // afresh with this line, not refused (its rank list and device are not this run's).
    void nccl1_block_ends(int line_no) {
        if (refused.empty() || !run.rows.empty())
            return;
        refused.clear();
        std::set<std::uint64_t> comm = std::move(run.comm_nranks);
        run = NcclRun{};
        run.comm_nranks = std::move(comm);
        run.first_line = line_no;
        rank_processes.clear();
    }

    // The line (without its '#') when it is a header line; false when it is not one.
    bool header_line(const std::vector<std::string_view>& tok, std::string_view line, bool hashed, int line_no) {
        std::uint64_t v = 0;
        if (is_rank_line(tok, hashed)) {
            parse_u64(tok[1], v);
            opening(line_no);
            const bool nccl1 = tok.size() >= 4 && tok[2] == "uses" && tok[3] == "device";
            if (!nccl1)
                nccl1_block_ends(line_no);
            run.ranks.insert(v);
            // "#   Rank  0 uses device  0 [0x06] ...": NCCL 1's own test/single programs (nccl-tests prints "Rank N on
            // host device"). Their sizes are not nccl-tests' (reduce_scatter_test prints one rank's bytes, its algbw
            // one rank's part over the time).
            if (nccl1)
                refused =
                    "NCCL 1's own test output ('Rank N uses device' lines, columns 'bytes N type ...', times in ms; its "
                    "sizes and algbw are not nccl-tests')";
            std::string host, pid;
            for (std::size_t i = 2; i + 1 < tok.size(); ++i) {
                if (tok[i] == "on" && host.empty())
                    host = std::string(tok[i + 1]);
                if (tok[i] == "Pid" && pid.empty())
                    pid = std::string(tok[i + 1]);
            }
            if (!host.empty())
                run.hosts.insert(host);
            if (!pid.empty()) {
                run.processes.insert(host + " " + pid);
                auto& by = rank_processes[v];
                by.insert(host + " " + pid);
                run.processes_per_rank_id = std::max<std::uint64_t>(run.processes_per_rank_id, by.size());
            }
            if (run.device_name.empty())
                if (const std::size_t br = line.find(']'); br != std::string_view::npos)
                    run.device_name = std::string(trim_left(line.substr(br + 1)));
            return true;
        }
        if (tok.size() >= 4 && tok[0] == "Collective" && tok[1] == "test" && tok[2] == "starting:") {
            opening(line_no);
            nccl1_block_ends(line_no);
            run.program = std::string(tok[3]);
            program_inherited = false;
            return true;
        }
        // The run's last line, "# Collective test concluded: all_reduce_perf": it names the test of the rows
        // above it, for a paste that starts at the column header (no "starting" line). It replaces a name the log
        // does not print for these rows (a markdown heading's, or the run before's when the sweep started again);
        // one that a starting line or command line printed is kept, and a footer naming another collective is
        // said (logs pasted together).
        if (tok.size() >= 4 && tok[0] == "Collective" && tok[1] == "test" && tok[2] == "concluded:") {
            if (run.rows.empty())
                return true;
            if (run.program.empty() || !run.program_from_heading.empty() || program_inherited) {
                run.program = std::string(tok[3]);
                run.program_from_heading.clear();
                program_inherited = false;
            } else if (collective_from_name(run.program) != collective_from_name(tok[3])) {
                warn(fmt::format("line {}: the footer names {}, but the run from line {} was started as {}: kept as {}", line_no,
                                 tok[3], run.first_line, run.program, run.program));
            }
            return true;
        }
        if (tok.size() == 3 && tok[0] == "Testing" && parse_u64(tok[1], v) && tok[2].substr(0, 5) == "cycle") {
            new_cycle = true;
            return true;
        }
        if (tok.size() >= 4 && tok[0] == "nThread" && parse_u64(tok[1], v)) {
            opening(line_no);
            nccl1_block_ends(line_no);
            run.header_threads = v;
            run.per_process_from_command = false;
            if (tok[2] == "nGpus" && parse_u64(tok[3], v))
                run.header_gpus = v;
            return true;
        }
        // The footer's "# Out of bounds values : 56 FAILED": elements that failed the check somewhere in the run.
        if (tok.size() >= 7 && tok[0] == "Out" && tok[1] == "of" && tok[2] == "bounds" && tok[3] == "values" &&
            tok[6] == "FAILED") {
            warn(
                fmt::format("line {}: the run's footer reports {} out-of-bounds values FAILED (results did not verify; "
                            "the rows' #wrong columns say which sizes)",
                            line_no, tok[5]));
            return true;
        }
        // -B's "# Bitwise mismatches : 3 FAILED": repeated runs gave results that differ bit for bit.
        if (tok.size() >= 5 && tok[0] == "Bitwise" && tok[1] == "mismatches" && tok[4] == "FAILED") {
            warn(
                fmt::format("line {}: the run's footer reports {} bitwise mismatches FAILED (repeated runs of a size "
                            "gave results that differ; the rows' #bitdiff columns say which sizes)",
                            line_no, tok[3]));
            return true;
        }
        if (tok.size() >= 5 && tok[0] == "Avg" && tok[1] == "bus" && tok[2] == "bandwidth") {
            // The footer of the rows above it. One with no row since the last footer (a README quoting
            // only the footers of further runs) averages rows that are not in the file: it is not this
            // run's.
            // Independent runs writing into one file at once (each rank id listed by several processes)
            // each print their footer after the shared rows: those are theirs, not missing rows.
            if (closed && run.processes_per_rank_id > 1)
                return true;
            if (closed || run.rows.empty()) {
                warn(
                    fmt::format("line {}: an \"Avg bus bandwidth\" line with no result rows before it (a run whose rows "
                                "are not in the file): not compared with any run",
                                line_no));
                return true;
            }
            PrintedNumber avg;
            if (parse_printed_number(tok[4], avg))
                run.avg_busbw_GBps = avg.value;
            run.last_line = line_no;
            closed = true;
            return true;
        }
        if (auto l = layout_from_header(tok)) {
            opening(line_no);
            if (!l->time_ms)
                nccl1_block_ends(line_no);
            if (!l->out_of_place_only && l->time + 2 * l->per_place <= tok.size()) {
                l->out_of_place_end = end_after(tok[0], tok[l->time + l->per_place - 1]);
                l->in_place_end = end_after(tok[0], tok[l->time + 2 * l->per_place - 1]);
            }
            header = l;
            return true;
        }
        return false;
    }

    void row_line(std::vector<std::string_view> tok, std::string_view line, int line_no) {
        NcclRow row;
        // A row behind a prefix no launcher rule knows (kubectl --prefix "[pod/x/c] ", docker compose
        // "svc-1  | ", torchrun "[default0]:", a logger's time and level): the row is the tokens from
        // the first "size count type" with a type nccl-tests prints.
        if (const std::size_t at = row_start(tok); at > 0)
            tok.erase(tok.begin(), tok.begin() + static_cast<std::ptrdiff_t>(at));
        // rccl-tests -A 1 (output_algo_proto_channels): "RING  SIMPLE  16" (or "N/A N/A N/A") after the results, not
        // a result's columns.
        if (tok.size() >= 12 && is_algo_word(tok[tok.size() - 3]) && is_algo_word(tok[tok.size() - 2]) &&
            (is_digits(tok.back()) || tok.back() == "N/A"))
            tok.resize(tok.size() - 3);
        // A run's rows that stop in the middle of one: the size (and count) of the next row, then nothing.
        if (!run.rows.empty() && !closed && is_row_stub(tok)) {
            unreadable_line(fmt::format("line {}: row cut short ({} of {} columns; a truncated log?): {}", line_no, tok.size(),
                                        header ? header->tokens : std::size_t{11}, std::string(line).substr(0, 120)));
            return;
        }
        // A line that starts with a size and names a data type where a row's count or type stands, but not as a row
        // (two columns run together: "1024256 float none ..."): said, not passed over.
        if (tok.size() >= 8 && is_digits(tok[0]) && (is_type_name(tok[1]) || is_type_name(tok[2])) &&
            !(is_digits(tok[1]) && is_type_name(tok[2]))) {
            unreadable_line(
                fmt::format("line {}: not an nccl-tests row (its size, count and type columns are not three "
                            "words; columns run together?): {}",
                            line_no, utf8_prefix(line, 120)));
            return;
        }
        if (tok.size() < 4 || !parse_u64(tok[0], row.size) || !parse_u64(tok[1], row.count))
            return;  // code fences, other programs' output
        // The header's layout; a row that does not fit it (logs pasted together) by its own tokens.
        // Under a header with more than time algbw busbw #wrong per placement (-B's #bitdiff, the per-iteration
        // columns), a row of exactly the plain layout's 13 tokens, fewer than the header's, ending in a whole #wrong
        // (or N/A) is a plain row pasted under it: not a row cut short, nor an in-place-only row (whose last token
        // under a per-iteration header is i_cv%, printed with decimals).
        const auto plain_under_wider_header = [&](const std::optional<Layout>& l) {
            return l && l->per_place > 4 && tok.size() == 13 && tok.size() < l->tokens &&
                   (is_digits(tok.back()) || tok.back() == "N/A");
        };
        auto fits = [&](const std::optional<Layout>& l) {
            return l && (tok.size() >= l->tokens ||
                         (!l->out_of_place_only && tok.size() == l->tokens - l->per_place && !plain_under_wider_header(l)));
        };
        // A row shorter than its header that still prints the header's redop name where the header
        // has it (not a blank redop shifting the columns): the line was cut short (a truncated log).
        // Without a header, a row its own tokens cannot read is measured against the layout of the run's rows above it.
        const std::optional<Layout> cut_ref =
            header ? header : (!run.rows.empty() && !closed && !layout_from_row(tok) ? row_layout : std::nullopt);
        PrintedNumber ignored;
        if (cut_ref && !fits(cut_ref) && !plain_under_wider_header(cut_ref) && tok.size() < cut_ref->tokens && cut_ref->redop &&
            cut_ref->redop < tok.size() && !parse_printed_number(tok[cut_ref->redop], ignored)) {
            const Layout& ref = *cut_ref;
            const char* const of = header ? "the header's" : "the rows'";
            // Cut after its out-of-place result (the test stopped, or the paste ended, during the in-place half):
            // that result is kept when its time, algbw and busbw are whole: a busbw ending the line with fewer digits
            // than nccl-tests prints at its magnitude was itself cut (whole_bandwidth).
            if (const auto oop = cut_after_out_of_place(tok, ref)) {
                warn(
                    fmt::format("line {}: row cut short after its out-of-place result ({} of {} {} columns; "
                                "the test stopped or the paste ended there): the out-of-place result is read, the "
                                "in-place one is lost: {}",
                                line_no, tok.size(), of, ref.tokens, std::string(line).substr(0, 120)));
                row.line = line_no;
                row.type = std::string(tok[2]);
                row.redop = std::string(tok[ref.redop]);
                if (ref.root) {
                    PrintedNumber root;
                    if (parse_printed_number(tok[ref.root], root) && root.decimals == 0 && std::abs(root.value) < 1e18)
                        row.root = static_cast<long long>(root.value);
                }
                row.out_of_place = oop;
                accept_row(std::move(row), ref, header.has_value(), line_no);
                return;
            }
            unreadable_line(fmt::format("line {}: row cut short ({} of {} {} columns; a truncated log?): {}", line_no, tok.size(),
                                        of, ref.tokens, std::string(line).substr(0, 120)));
            return;
        }
        const std::optional<Layout> layout = fits(header) ? header : layout_from_row(tok);
        // A full row, or (trace replay) a row with only the in-place result.
        const bool full = layout && tok.size() >= layout->tokens;
        const bool in_place_only = layout && !layout->out_of_place_only && tok.size() == layout->tokens - layout->per_place;
        if (!full && !in_place_only) {
            unreadable_line(fmt::format("line {}: not an nccl-tests row: {}", line_no, std::string(line).substr(0, 120)));
            return;
        }
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
            row.out_of_place = read_result(tok, layout->time, *layout);
            if (!layout->out_of_place_only)
                row.in_place = read_result(tok, layout->time + layout->per_place, *layout);
        } else {
            const OneResult where = one_result_place(tok, *layout);
            auto& res = where == OneResult::out_of_place ? row.out_of_place : row.in_place;
            res = read_result(tok, layout->time, *layout);
            // Said once per run, for a row that is read.
            if (res && where != OneResult::in_place && !std::exchange(one_result_said, true))
                warn(where == OneResult::out_of_place
                         ? fmt::format("line {}: a row with one result whose columns end under the header's out-of-place "
                                       "ones (rccl-tests -O 1, or a row cut after its out-of-place result): read as "
                                       "out-of-place",
                                       line_no)
                         : fmt::format("line {}: a row with one result that lines up with neither of the header's results: "
                                       "read as in-place (nccl-tests' trace replay), which is not certain",
                                       line_no));
        }
        const bool read =
            full ? row.out_of_place && (layout->out_of_place_only || row.in_place) : row.out_of_place || row.in_place;
        if (!read) {
            unreadable_line(fmt::format("line {}: unreadable numbers: {}", line_no, std::string(line).substr(0, 120)));
            return;
        }
        if (!fits(header))
            row_layout = layout;
        accept_row(std::move(row), *layout, fits(header), line_no);
    }

    // A row with one result under a header with two: nccl-tests' trace replay and -O 0 print the in-place one after 32
    // blanks (writeBenchMarkLineNullBody), so its columns end under the header's in-place ones; rccl-tests -O 1
    // (out-of-place only) prints the out-of-place one alone, as does a row cut after its out-of-place #wrong: they end
    // under the header's out-of-place ones. nccl-tests' widths are fixed (a field wider than its width adds a character
    // or two), so a row lines up with a result when its end is within kLinesUp characters of that result's; a row that
    // lines up with neither (blanks collapsed on a web page, no header line) is read as in-place, warned.
    // Only for the plain layout (time algbw busbw #wrong per result).
    enum class OneResult { out_of_place, in_place, neither };
    static constexpr long kLinesUp = 3;
    bool one_result_said = false;
    static OneResult one_result_place(const std::vector<std::string_view>& tok, const Layout& layout) {
        // With -B's or the per-iteration report's columns the 32 blanks do not pad a whole result: such a row is read as
        // in-place (its last column, i_cv%, shows decimals a #wrong does not).
        if (layout.per_place != 4)
            return OneResult::in_place;
        if (layout.out_of_place_end < 0)
            return OneResult::neither;
        const long end = end_after(tok[0], tok.back());
        const long to_oop = std::abs(end - layout.out_of_place_end);
        const long to_ip = std::abs(end - layout.in_place_end);
        if (to_oop <= kLinesUp && to_oop < to_ip)
            return OneResult::out_of_place;
        if (to_ip <= kLinesUp && to_ip < to_oop)
            return OneResult::in_place;
        return OneResult::neither;
    }

    // A row read (whole, in-place only, or cut after its out-of-place result): a new run where it starts one, then
    // the current run's.
    void accept_row(NcclRow row, const Layout& layout, bool fits_header, int line_no) {
        if (layout.cputime)
            for (std::optional<NcclResult>* res : {&row.out_of_place, &row.in_place})
                if (*res)
                    gpu_time_from_algbw(**res, row.size);
        // Rows after the run's "Avg bus bandwidth" belong to another run; so does a sweep that starts
        // again (a smaller size than the last row's, same type, redop and root) with no header between:
        // another invocation whose header lines were cut or filtered out (a grep of several logs). One
        // run's sweep only grows, and repeats only under -N (after "# Testing N cycle."), or with another
        // type, operation or root (-d all, -o all, -r all); interleaved independent runs repeat sizes too.
        // Another collective's sweep pasted under this one is another run even where the operation
        // changes: -o all cycles through reductions (sum, prod, ...) but never to or from "none", and
        // with the same type the elements per byte stay (allreduce counts the whole buffer, allgather,
        // reducescatter and alltoall one rank's part).
        const auto other_collective = [](const NcclRow& a, const NcclRow& b) {
            __extension__ using u128 = unsigned __int128;
            const bool none_switch = (a.redop == "none") != (b.redop == "none") && !a.redop.empty() && !b.redop.empty();
            return none_switch ||
                   (a.size > 0 && b.size > 0 && static_cast<u128>(a.count) * b.size != static_cast<u128>(b.count) * a.size);
        };
        const bool restart =
            !run.rows.empty() && !new_cycle && run.processes_per_rank_id == 1 && row.size < run.rows.back().size &&
            row.type == run.rows.back().type &&
            ((row.redop == run.rows.back().redop && row.root == run.rows.back().root) || other_collective(row, run.rows.back()));
        if (restart)
            warn(fmt::format("line {}: the sizes start again ({} B after {} B) with no header between: read as another run",
                             line_no, row.size, run.rows.back().size));
        if (closed || restart) {
            // The same sweep again is the same test: it keeps the program, not the ranks. Another collective's
            // sweep does not; nor, once a row with bytes shows it, one whose first rows are of size 0 (no
            // elements per byte to compare).
            const bool same_test = restart && !other_collective(row, run.rows.back());
            std::string program = same_test ? run.program : std::string();
            std::string from_heading = same_test ? run.program_from_heading : std::string();
            std::optional<NcclRow> shape;
            if (same_test)
                for (auto it = run.rows.rbegin(); it != run.rows.rend() && !shape; ++it)
                    if (it->size > 0)
                        shape = *it;
            finish_run();
            program_inherited = !program.empty();
            run.program = std::move(program);
            run.program_from_heading = std::move(from_heading);
            inherited_shape = row.size > 0 ? std::nullopt : std::move(shape);
            if (!fits_header)
                header.reset();
        } else if (inherited_shape && row.size > 0) {
            if (other_collective(row, *inherited_shape)) {
                warn(
                    fmt::format("line {}: the rows from line {} count {} elements in {} B, not as the run before them: "
                                "another collective's sweep, not read as {}",
                                line_no, run.first_line, row.count, row.size, run.program.empty() ? "its test" : run.program));
                run.program.clear();
                run.program_from_heading.clear();
                program_inherited = false;
            }
            inherited_shape.reset();
        }
        new_cycle = false;
        if (run.first_line == 0)
            run.first_line = line_no;
        if (run.rows.empty() && !heading_program.empty()) {
            if (run.program.empty() && heading_fits(heading_program, row)) {
                run.program = heading_program;
                run.program_from_heading = heading_text;
            } else if (run.program.empty()) {
                run.heading_not_fitting = heading_text;
                warn(
                    fmt::format("line {}: the heading on line {} names {}, but the row's columns, elements per byte or "
                                "busbw/algbw are not that test's: the heading is not used",
                                line_no, heading_line, heading_program));
            }
            heading_program.clear();
        }
        run.last_line = line_no;
        layout_name = layout.name;
        if (fits_header && !rows_under_header && layout.cputime)
            warn(fmt::format(
                "line {}: the time columns are nccl-tests -C 1's \"cputime\" (the host's launch loop, not the "
                "collective's time on the GPU, which algbw is from): the op time is size / algbw, the printed cputime is "
                "kept as cputime_us",
                line_no));
        rows_under_header = rows_under_header || fits_header;
        run.times_ms = run.times_ms || layout.time_ms;
        run.rows.push_back(std::move(row));
    }
};

// Whether row `a` of a run that names no test could be a row of the test whose row `b` is: the same data type,
// operation and root, elements per byte (allreduce counts the whole buffer, reduce_scatter and allgather one
// rank's part) and bus factor busbw/algbw (allreduce 2(n-1)/n, reduce_scatter (n-1)/n, sendrecv 1). "none" with
// root -1 is never enough: allgather and alltoall print the same columns and the same factor (n-1)/n.
bool same_test_shape(const NcclRow& a, const NcclRow& b) {
    if (a.type != b.type || a.redop != b.redop || a.root != b.root || a.redop.empty() || a.size == 0 || b.size == 0)
        return false;
    if (a.redop == "none" && a.root.value_or(-1) == -1)
        return false;
    __extension__ using u128 = unsigned __int128;
    if (static_cast<u128>(a.count) * b.size != static_cast<u128>(b.count) * a.size)
        return false;
    const auto fa = bus_factor_range(a), fb = bus_factor_range(b);
    return fa && fb && fa->first <= fb->second && fb->first <= fa->second;
}

}  // namespace

}  // namespace bwacct::detail

namespace bwacct {

std::uint64_t nccl_type_bytes(std::string_view t) {
    if (t == "int8" || t == "uint8" || t == "char" || t == "f8e4m3" || t == "f8e5m2" || t == "fp8_e4m3" || t == "fp8_e5m2")
        return 1;
    if (t == "half" || t == "bfloat16" || t == "bf16")
        return 2;
    if (t == "int32" || t == "uint32" || t == "float" || t == "int" || t == "uint")
        return 4;
    if (t == "int64" || t == "uint64" || t == "double")
        return 8;
    return 0;
}

}  // namespace bwacct

namespace bwacct::detail {

NcclLog parse_nccl_text(const std::string& text_raw, const std::string& origin) {
    TextReader r;
    // A coloured terminal's escape sequences ("\x1b[32m", or their "[32m" residue) are not the log's. (No copy of a
    // log without an ESC or an SGR residue.)
    const bool coloured = ingest::has_terminal_escapes(text_raw);
    const std::string decolored = coloured ? ingest::strip_terminal_escapes(text_raw) : std::string();
    const std::string& text_in = coloured ? decolored : text_raw;
    // Lines a document converter wrapped in inline markup (":mark:`...`" wrapped over two lines) read as the log's.
    // (No copy of a log without a backtick.)
    const bool marked = text_in.find('`') != std::string::npos;
    const std::string unwrapped = marked ? ingest::unwrap_inline_markup(text_in) : std::string();
    std::string_view text = marked ? std::string_view(unwrapped) : std::string_view(text_in);
    // Unicode blanks (a web page's no-break spaces) read as the blanks nccl-tests printed; one between a digit and
    // three digits as a locale's thousands separator (nccl-tests prints none), said.
    ingest::BlankReport blanks;
    const std::string ascii = ingest::has_unicode_blanks(text) ? ingest::ascii_blanks(text, blanks) : std::string();
    if (!ascii.empty())
        text = ascii;
    if (std::string w = ingest::blank_conflict_warning(blanks); !w.empty())
        r.warn(std::move(w));
    if (blanks.thousands > 0)
        r.warn(
            fmt::format("line {}: a no-break space between digits read as a thousands separator ('{}' read as {}{}; "
                        "nccl-tests prints none: the text went through a locale-aware tool)",
                        blanks.first_line, blanks.first_text, blanks.first_read,
                        blanks.thousands > 1 ? fmt::format(", and {} more", blanks.thousands - 1) : std::string()));
    // Rows pasted as a markdown table ("1024 | 512 | half | ..."): their cells read as columns, warned.
    const std::optional<ingest::MarkdownTable> table = ingest::markdown_table_rows(text);
    if (table) {
        r.warn(
            fmt::format("line {}: {} rows pasted as a markdown table (cells between '|'{}): their cells read as the "
                        "columns; numbers the paste wrote without trailing zeros (\"5.8\" for 5.80) are checked to the "
                        "digits shown",
                        table->first_line, table->rows,
                        table->escaped > 0 ? fmt::format(", {} header lines escaped as '\\#'", table->escaped) : std::string()));
        text = table->text;
    }
    // A logger's prefix before " | " on every line ("2024-05-01 12:00:01,234 | "): cut like a launcher's tags.
    const std::optional<std::string> unprefixed = ingest::cut_logger_prefix(text);
    if (unprefixed)
        text = *unprefixed;
    // Two logs pasted side by side ("<row> | <row>"): the right-hand one read after the left-hand one, as its own run.
    const std::optional<ingest::SideBySide> sbs = ingest::split_side_by_side(text);
    if (sbs) {
        r.warn(
            fmt::format("lines {}-{}: two logs side by side ({} lines split at ' | '): the right-hand one is read as a "
                        "log of its own after the left-hand one (its lines numbered as the file lines whose right-hand "
                        "half they are)",
                        sbs->first, sbs->last, sbs->lines));
        text = sbs->text;
    }
    // Lines of `text` in order; reported as the file's line: a right-hand part as the line it shares with the left.
    std::size_t seq = 0;
    int line_no = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view raw = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++seq;
        line_no = static_cast<int>(seq);
        if (sbs && seq > sbs->left_lines + 1 && seq - sbs->left_lines - 2 < sbs->right_lines.size())
            line_no = static_cast<int>(sbs->right_lines[seq - sbs->left_lines - 2]);
        const std::string cleaned = strip_launcher_tags(raw);
        std::string_view line = cleaned;
        // nccl-tests -T: testStreamSynchronize prints "%s: Test timeout (%ds) %s:%d" (host name first) straight after
        // what the row had printed, with no blank: "78.64       0n1: Test timeout (20s) common.cu:400". The row is the
        // text before the token that holds the host name (that token's leading digits may be the #wrong column, which
        // is not told from a host name's: left out); the timeout is said as the test's failure.
        std::string_view timeout;
        if (const std::size_t t = line.find(": Test timeout ("); t != std::string_view::npos && t > 0) {
            const std::size_t blank = line.find_last_of(" \t", t);
            const std::size_t start = blank == std::string_view::npos ? 0 : blank + 1;
            timeout = line.substr(start);
            line = line.substr(0, start);
        }
        if (line.empty() && !timeout.empty()) {
            r.test_failure(timeout, line_no);
            continue;
        }
        if (line.empty())
            continue;
        if (const std::size_t info = line.find("NCCL INFO"); info != std::string_view::npos) {
            r.info_line(split_ws(line.substr(info + 9)));
            continue;
        }
        if (line.find("NCCL WARN") != std::string_view::npos)
            continue;
        if (line.find("Test NCCL failure") != std::string_view::npos ||
            line.find("Test CUDA failure") != std::string_view::npos || line.find("Test HIP failure") != std::string_view::npos ||
            line.find("Test failure ") != std::string_view::npos) {
            // Quoted from the raw line: its "(run with NCCL_DEBUG=INFO for details)" has the shape of a
            // launcher tag and is not in `line`.
            const std::size_t at = raw.find("Test ");
            r.test_failure(at == std::string_view::npos ? line : raw.substr(at), line_no);
            continue;
        }
        // A markdown heading ("### All 2 All - Single Node": two to six '#' and a blank; nccl-tests prints one '#'):
        // the collective it names is the next unnamed run's.
        if (const std::size_t h = line.find_first_not_of('#'); h >= 2 && h <= 6 && h < line.size() && line[h] == ' ') {
            r.heading_program = heading_program(line.substr(h));
            r.heading_text = utf8_prefix(trim_left(line), 80);
            r.heading_line = line_no;
            continue;
        }
        // A paragraph wholly in bold ("**sendrecv  ranks=8  (intra-node)**" above each block of a report) is used as a
        // heading: the same.
        if (const std::string_view b = bold_paragraph(line); !b.empty()) {
            r.heading_program = heading_program(b);
            r.heading_text = utf8_prefix(trim_left(line), 80);
            r.heading_line = line_no;
            continue;
        }
        const bool hashed = line.front() == '#';
        std::string_view body = line;
        while (!body.empty() && body.front() == '#')
            body.remove_prefix(1);
        const auto tok = split_ws(body);
        if (r.header_line(tok, body, hashed, line_no) || hashed)
            continue;
        // A header line behind a prefix no launcher rule knows: nccl-tests' own '#' later in the line
        // (a rank line must then show its Pid/device words, not only "Rank N").
        // Only the first few runs of '#' are tried: a prefix holds few, and a line of many stays linear.
        bool decorated = false;
        std::size_t at = line.find('#', 1);
        for (int tries = 0; at != std::string_view::npos && !decorated && tries < 4; ++tries) {
            const std::size_t end = std::min(line.find_first_not_of('#', at), line.size());
            const std::string_view rest = line.substr(end);
            decorated = r.header_line(split_ws(rest), rest, false, line_no);
            at = line.find('#', end);
        }
        if (decorated)
            continue;
        CommandLine cmd;
        if (read_command_line(tok, cmd)) {
            r.opening(line_no);
            r.run.program = cmd.program;
            r.program_inherited = false;
            if (cmd.procs)
                r.run.launcher_processes = cmd.procs;
            // The header line, when the log has one, says the same and comes after: it is read over this;
            // a later command line over an earlier one.
            if (cmd.gpus && (!r.run.header_gpus || r.run.per_process_from_command)) {
                r.run.header_gpus = cmd.gpus;
                r.run.header_threads = cmd.threads.value_or(1);  // nccl-tests' default -t 1
                r.run.per_process_from_command = true;
            }
            continue;
        }
        r.row_line(tok, line, line_no);
        if (!timeout.empty())
            r.test_failure(timeout, line_no);
        // Any other line (prose, a table of something else) ends what a heading above it names: a heading names the
        // run right under it, not one further down. A row read has used it; a fence keeps it.
        if (!is_fence(line))
            r.heading_program.clear();
    }
    // A run whose header block or rank list the paste ends in, before any row of it: nothing of it is read; say so
    // rather than drop it unseen (a README's second example cut after "#  Rank 143 ...").
    if (r.run.rows.empty() && r.run.first_line > 0 && !r.log.runs.empty() &&
        (!r.run.ranks.empty() || (r.run.header_gpus && !r.run.per_process_from_command)))
        r.warn(fmt::format("line {}: a run's {} with no result row after it (the paste ends there): not read", r.run.first_line,
                           r.run.ranks.empty() ? "header" : "header or rank list"));
    r.finish_run();
    NcclLog& log = r.log;
    if (log.runs.empty() && !r.last_refusal.empty())
        throw InputError(origin,
                         fmt::format("{} is not read; expected nccl-tests output (all_reduce_perf ... > log)", r.last_refusal));
    if (log.runs.empty())
        throw InputError(
            origin, r.unreadable > 0
                        ? fmt::format("{} ({}); expected nccl-tests output (all_reduce_perf ... > log)",
                                      r.unreadable == 1 ? std::string("1 line looks like an nccl-tests row but could not be read")
                                                        : fmt::format("{} lines look like nccl-tests rows but none could be read",
                                                                      r.unreadable),
                                      r.first_unreadable)
                        : "holds no nccl-tests result row; expected nccl-tests output "
                          "(all_reduce_perf ... > log) or its -J JSON");
    // A run that names no test, pasted after one that does (a README's second table under its first, a
    // repeated column header with no header block): the same test when its first row could be a row of that
    // test (same_test_shape).
    for (std::size_t i = 1; i < log.runs.size(); ++i) {
        NcclRun& run = log.runs[i];
        const NcclRun& before = log.runs[i - 1];
        if (run.program.empty() && !before.program.empty() && same_test_shape(run.rows.front(), before.rows.front())) {
            run.program = before.program;
            run.program_from_previous_run = true;
        }
    }
    if (r.unsaid > 0)
        log.warnings.push_back(fmt::format("{} more warnings of these kinds", r.unsaid));
    log.format = fmt::format("nccl-tests text ({})", r.layout_name);
    return std::move(log);
}

}  // namespace bwacct::detail
