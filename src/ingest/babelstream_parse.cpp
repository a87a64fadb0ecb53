// BabelStream text/CSV and SuperBench gpu-stream output (include/bwacct/ingest_babelstream.h).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>

#include "babelstream_alpaka.h"
#include "bwacct/error.h"
#include "bwacct/ingest_babelstream.h"
#include "csv.h"
#include "inline_markup.h"
#include "text_columns.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;
using ingest::split_lines;
using ingest::split_words;

constexpr const char* kExpected =
    "expected BabelStream output (the 'Function MBytes/sec Min (sec) Max Average' table, or --csv), alpaka's "
    "babelstream table ('Kernels Bandwidths(GB/s) MinTime(s) MaxTime(s) AvgTime(s) DataUsage(MB)') or SuperBench "
    "gpu-stream output (STREAM_<KERNEL>_<type>_buffer_<bytes>_block_<n> <GB/s> <% of peak>)";

std::string trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t");
    if (a == std::string::npos)
        return "";
    const std::size_t b = s.find_last_not_of(" \t");
    return s.substr(a, b - a + 1);
}

// Plain scanning (no regular expression: std::regex recurses per character and overflows the stack
// on a long line). Each consumes a prefix of `s` when it matches and says whether it did.
bool eat(std::string_view& s, std::string_view prefix) {
    if (s.substr(0, prefix.size()) != prefix)
        return false;
    s.remove_prefix(prefix.size());
    return true;
}
void eat_blanks(std::string_view& s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
}
// One or more characters for which `pred` holds; empty when none.
template <class Pred>
std::string_view eat_while(std::string_view& s, Pred pred) {
    std::size_t n = 0;
    while (n < s.size() && pred(static_cast<unsigned char>(s[n])))
        ++n;
    const std::string_view out = s.substr(0, n);
    s.remove_prefix(n);
    return out;
}
bool is_digit(unsigned char c) { return std::isdigit(c) != 0; }
bool is_word(unsigned char c) { return std::isalnum(c) != 0 || c == '_'; }

double number(const std::string& text, const std::string& what, std::size_t line, const std::string& origin, bool positive) {
    const std::optional<double> v = parse_number_text(text);
    if (!v || *v < 0 || (positive && *v == 0))
        throw InputError(origin, fmt::format("line {}: {} '{}' is not a {} number; {}", line, what, text,
                                             positive ? "positive" : "non-negative", kExpected));
    return *v;
}

// A whole number that fits comfortably in 64 bits (device ids, buffer sizes, block sizes).
std::uint64_t whole(const std::string& text, const std::string& what, std::size_t line, const std::string& origin) {
    const double v = number(text, what, line, origin, false);
    if (v != std::floor(v) || v > 1e18)
        throw InputError(origin,
                         fmt::format("line {}: {} '{}' is not a whole number below 10^18; {}", line, what, text, kExpected));
    return static_cast<std::uint64_t>(v);
}

bool is_function(const std::string& s) { return babelstream_arrays(s) > 0; }

// How BabelStream's own lines start: its banner, context lines, table header and rows (text or CSV),
// and gpu-stream's. A launcher's prefix stands before them.
bool starts_babelstream_line(std::string_view v) {
    static constexpr std::array<std::string_view, 24> kStarts{"BabelStream",
                                                              "GPU-STREAM",
                                                              "Version:",
                                                              "Implementation:",
                                                              "Running ",
                                                              "Precision:",
                                                              "Array size:",
                                                              "Total size:",
                                                              "Using ",
                                                              "Driver:",
                                                              "Memory:",
                                                              "Reduction ",
                                                              "Init:",
                                                              "Read:",
                                                              "Function",
                                                              "function,",
                                                              "Number of elements:",
                                                              "GridSize:",
                                                              "Operations/Work-item:",
                                                              "STREAM_",
                                                              "Device ",
                                                              "Bandwidth (",
                                                              "Validation ",
                                                              "Failed "};
    for (const std::string_view k : kStarts)
        if (v.substr(0, k.size()) == k)
            return true;
    // A result row: a function name, then blanks or the CSV comma.
    std::size_t end = 0;
    while (end < v.size() && is_word(static_cast<unsigned char>(v[end])))
        ++end;
    return end > 0 && end < v.size() && (v[end] == ' ' || v[end] == '\t' || v[end] == ',') &&
           babelstream_arrays(std::string(v.substr(0, end))) > 0;
}

// A row of the text table: the function name and four numbers (bandwidth, min, max, average).
bool row_shaped(const std::vector<std::string>& t) {
    if (t.size() != 5 || !is_word(static_cast<unsigned char>(t[0].front())))
        return false;
    for (std::size_t k = 1; k < 5; ++k)
        if (!parse_number_text(t[k]))
            return false;
    return true;
}

// BabelStream prints the bandwidth with 3 decimals in a 12-character left-aligned cell (C++
// "std::left << std::setw(12)", Fortran "(5a12)" of "f12.3"): a bandwidth of 12 characters or more
// touches the min time ("51177268.4930.00004"). The bandwidth ends 3 digits after its point: a known
// function's 4-field row is split there when both halves are numbers.
void unglue_bandwidth(std::vector<std::string>& t) {
    if (t.size() != 4 || !is_function(t[0]))
        return;
    const std::size_t dot = t[1].find('.');
    if (dot == std::string::npos || dot + 4 >= t[1].size() || t[1].find('.', dot + 4) == std::string::npos)
        return;
    std::string bw = t[1].substr(0, dot + 4), rest = t[1].substr(dot + 4);
    if (!parse_number_text(bw) || !parse_number_text(rest))
        return;
    t[1] = std::move(bw);
    t.insert(t.begin() + 2, std::move(rest));
}

// A row of a function BabelStream does not define: a name and four numbers (MB/s, min, max, average).
bool looks_like_table_row(std::string_view v) { return row_shaped(split_words(std::string(v))); }

// One element of a launcher's line prefix, by shape (srun -l "0: ", pdsh "node-1: ", mpirun
// --tag-output "[1,0]<stdout>:", torchrun "[default0]:", kubectl "[pod/x/c] ", Ray "(head, rank=0,
// pid=1) ", time stamps "2024-05-01T12:34:56.789Z" or "[12:34:56]", a logger's "INFO:"): its length, 0
// when `v` does not start with one.
std::size_t prefix_element(std::string_view v) {
    if (v.empty())
        return 0;
    std::size_t n = 0;
    if (v.front() == '[' || v.front() == '(') {
        const std::size_t close = v.find(v.front() == '[' ? ']' : ')');
        if (close == std::string_view::npos || close > 200)
            return 0;
        n = close + 1;
        if (n < v.size() && v[n] == '<') {  // "[1,0]<stdout>:"
            const std::size_t gt = v.find('>', n);
            if (gt == std::string_view::npos || gt > 300)
                return 0;
            n = gt + 1;
        }
        if (n < v.size() && v[n] == ':')
            ++n;
        return n;
    }
    while (n < v.size() && v[n] != ' ' && v[n] != '\t')
        ++n;
    const std::string_view word = v.substr(0, n);
    if (word.size() >= 2 && word.back() == ':')
        return n;
    bool stamp = word.find_first_of("0123456789") != std::string_view::npos;
    for (const char c : word)
        stamp = stamp && (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
                          std::string_view("-:.,/TZ+").find(c) != std::string_view::npos);
    return stamp ? n : 0;
}

// The line without a launcher's prefix, when what follows the prefix is a BabelStream line; else the
// line as it was. BabelStream's own "Key: value" lines start like a "word: " prefix, so each element is
// removed only while no BabelStream line starts there.
std::string without_launcher_prefix(const std::string& line) {
    std::string_view v = line;
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove_prefix(1);
    if (starts_babelstream_line(v))
        return line;
    for (int i = 0; i < 12 && !v.empty(); ++i) {
        const std::size_t n = prefix_element(v);
        if (n == 0)
            break;
        v.remove_prefix(n);
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
            v.remove_prefix(1);
        if (starts_babelstream_line(v) || looks_like_table_row(v))
            return std::string(v);
    }
    return line;
}

// `v` after its first `words` blank-separated words (and the blanks after them); empty when it has no more.
std::string_view after_words(std::string_view v, std::size_t words) {
    for (std::size_t w = 0; w < words; ++w) {
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
            v.remove_prefix(1);
        while (!v.empty() && v.front() != ' ' && v.front() != '\t')
            v.remove_prefix(1);
    }
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove_prefix(1);
    return v;
}

bool text_table_header(const std::string& t, bool& mib);

// A prefix no element rule knows (docker compose "svc-1  | ", a container runtime's "<time> stdout F ",
// journald's "May 01 12:00:00 host unit[123]: "): the words before the file's own banner or table header (--csv's too),
// on the first line that shows one after 1 to 8 words and whose count of words the lines after it share: one of the
// next 8 lines that is not itself a BabelStream line is one after that many words (so a markdown heading
// "## BabelStream" above the paste does not set it). Each line is then cut after that many words where a BabelStream
// line follows them; other lines are kept. 0 when no line shows it.
std::size_t prefix_words(const std::vector<std::string>& lines) {
    const auto shared = [&](std::size_t j, std::size_t w) {
        for (std::size_t k = j + 1; k < lines.size() && k <= j + 8; ++k) {
            const std::string t = trim(lines[k]);
            if (t.empty() || starts_babelstream_line(t))
                continue;
            const std::string_view rest = after_words(t, w);
            if (starts_babelstream_line(rest) || looks_like_table_row(rest))
                return true;
        }
        return false;
    };
    for (std::size_t j = 0; j < lines.size(); ++j) {
        bool mib = false;
        const std::string t = trim(lines[j]);
        if (t.empty() || starts_babelstream_line(t))
            continue;
        for (std::size_t w = 1; w <= 8; ++w) {
            const std::string rest(after_words(t, w));
            if (rest.empty())
                break;
            if ((rest == "BabelStream" || text_table_header(rest, mib) || rest.rfind("function,num_times", 0) == 0) &&
                shared(j, w))
                return w;
        }
    }
    return 0;
}

// Context lines of a BabelStream run (they come before its table). `gpu_stream` when the run's banner
// is "GPU-STREAM" (the name before BabelStream 2.0).
void read_context(const std::string& line, BabelStreamRun& run, bool gpu_stream) {
    const std::string t = trim(line);
    std::string_view v = t;
    std::uint64_t count = 0;
    const auto read_count = [&](std::string_view key, std::string_view unit) {
        std::string_view w = v;
        if (!eat(w, key))
            return false;
        eat_blanks(w);
        const std::string_view digits = eat_while(w, is_digit);
        eat_blanks(w);
        if (digits.empty() || digits.size() > 15 || w != unit)
            return false;
        count = std::stoull(std::string(digits));
        return true;
    };
    // GPU-STREAM 1.0: "GridSize: 26214400 work-items" then "Operations/Work-item: 1" (400 with --groups):
    // the arrays hold their product of elements, exactly.
    if (read_count("GridSize:", "work-items")) {
        run.work_items = count;
    } else if (read_count("Operations/Work-item:", "")) {
        if (run.work_items && count > 0 && *run.work_items <= (std::uint64_t{1} << 50) / count)
            run.n_elements = *run.work_items * count;
    } else if (read_count("Number of elements:", "")) {
        // BabelStream after 5.0: "Number of elements: 33554432", the exact count behind "Array size".
        run.n_elements = count;
    } else if (t.rfind("Version:", 0) == 0)
        run.version = trim(t.substr(8));
    else if (t.rfind("Implementation:", 0) == 0)
        run.implementation = trim(t.substr(15));
    else if (t == "Precision: double" || t == "Precision: REAL64")  // BabelStream Fortran: REAL64, REAL32
        run.sizeof_t = 8;
    else if (t == "Precision: float" || t == "Precision: REAL32")
        run.sizeof_t = 4;
    else if (eat(v, "Array size:")) {
        // "Array size: 268.4 MB (=0.3 GB)": digits, an optional fraction, then MB or MiB as a word.
        eat_blanks(v);
        const std::string_view whole_part = eat_while(v, is_digit);
        std::string_view fraction;
        if (!whole_part.empty() && eat(v, ".")) {
            fraction = eat_while(v, is_digit);
            if (fraction.empty())
                return;
        }
        const std::string digits = std::string(whole_part) + (fraction.empty() ? "" : "." + std::string(fraction));
        eat_blanks(v);
        const bool mib = eat(v, "MiB");
        if (whole_part.empty() || (!mib && !eat(v, "MB")) || (!v.empty() && is_word(static_cast<unsigned char>(v.front()))))
            return;
        // GPU-STREAM 1.x printed the size in 2^20-byte units under the name "MB" ("Array size: 200.0 MB
        // (=0.2 GB)" for 26214400 doubles); BabelStream prints 10^6-byte MB ("268.4 MB (=0.3 GB)").
        const bool old_mib = gpu_stream && run.version.rfind("1.", 0) == 0;
        const double unit = mib || old_mib ? 1048576.0 : 1e6;
        if (const std::optional<double> n = parse_number_text(digits); n && fraction.size() < 20) {
            run.array_bytes = *n * unit;
            run.array_bytes_halfwidth = 0.5 * std::pow(10.0, -static_cast<double>(fraction.size())) * unit;
        }
    } else if (eat(v, "Using ")) {
        // "Using CUDA device NVIDIA A100-SXM4-40GB" (Thrust: "Using CUDA device: Tesla V100-PCIE-16GB"): the name
        // follows the last "device " or "device: ".
        const std::size_t at = v.rfind("device");
        std::size_t name = at == std::string_view::npos ? v.size() : at + 6;
        if (name < v.size() && v[name] == ':')
            ++name;
        if (at != std::string_view::npos && (at == 0 || v[at - 1] == ' ') && name + 1 < v.size() && v[name] == ' ')
            run.device = trim(std::string(v.substr(name + 1)));
    }
}

// Whether the paste ends after line k: the next line that is not blank is none, a code fence ("```", "~~~", a line of
// backticks) or an HTML tag alone ("</details>", "</pre>"): what follows a fence (the author's prose, another block) is
// not the log's.
bool paste_ends_after(const std::vector<std::string>& lines, std::size_t k) {
    for (++k; k < lines.size(); ++k) {
        const std::string l = trim(lines[k]);
        if (l.empty())
            continue;
        return l.rfind("```", 0) == 0 || l.rfind("~~~", 0) == 0 || l.find_first_not_of('`') == std::string::npos ||
               (l.size() >= 3 && l.front() == '<' && l.back() == '>' && l.find('>') == l.size() - 1);
    }
    return true;
}

// Digits after the point of a printed number ("0.01456": 5).
std::size_t decimals_of(const std::string& t) {
    const std::size_t dot = t.find('.');
    return dot == std::string::npos || t.find_first_of("eE") != std::string::npos ? 0 : t.size() - dot - 1;
}

void parse_text_table(const std::vector<std::string>& lines, std::size_t& i, const BabelStreamRun& run, BabelStreamFile& out,
                      const std::string& origin) {
    const std::size_t before = out.rows.size();
    for (++i; i < lines.size(); ++i) {
        if (is_validation_failure(lines[i])) {  // stderr interleaved with the table
            if (out.runs.back().validation_failure.empty()) {
                out.runs.back().validation_failure = trim(lines[i]).substr(0, 200);
                out.runs.back().validation_line = i + 1;
            }
            continue;
        }
        std::vector<std::string> t = split_words(lines[i]);
        unglue_bandwidth(t);
        // The table ends at the first line that is not a row. A known function's row must be whole; a
        // row of another name (a variant's own kernel) is kept, its bytes unknown, and reading goes on.
        // A blank or foreign line inside the table (a double-spaced paste, as markdown renderers and some docs write
        // it; a warning on stderr between two rows) does not end it: up to 3 such lines are skipped when the next line
        // is a known function's whole row that this table has not had (a repeated function is another run's). A
        // foreign line skipped is warned about; a validation failure among them is the run's.
        // A row cut inside its function's name where the paste ends ("Do" of "Dot"): said, not dropped unseen.
        if (t.size() == 1 && !out.rows.empty() && paste_ends_after(lines, i) && !is_function(t[0])) {
            static constexpr std::array<std::string_view, 6> kNames{"Copy", "Mul", "Add", "Triad", "Dot", "Nstream"};
            if (std::any_of(kNames.begin(), kNames.end(), [&](std::string_view n) { return n.rfind(t[0], 0) == 0; })) {
                out.warnings.push_back(
                    fmt::format("line {}: a row cut inside its function's name ('{}') where the paste "
                                "ends: not read; run {}'s rows before it are",
                                i + 1, t[0], run.run));
                ++i;
                break;
            }
        }
        if (t.empty() || (!is_function(t[0]) && !row_shaped(t))) {
            const auto skippable = [&](std::size_t k) {
                const std::string l = trim(lines[k]);
                return l.empty() || is_validation_failure(l) || (!starts_babelstream_line(l) && !looks_like_table_row(l));
            };
            std::size_t next = i + 1;
            while (next < lines.size() && next <= i + 3 && skippable(next))
                ++next;
            std::vector<std::string> n =
                next < lines.size() && next <= i + 3 ? split_words(lines[next]) : std::vector<std::string>{};
            unglue_bandwidth(n);
            const bool seen = std::any_of(out.rows.begin() + static_cast<std::ptrdiff_t>(before), out.rows.end(),
                                          [&](const BabelStreamRow& r) { return !n.empty() && r.function == n[0]; });
            if (!(n.size() == 5 && is_function(n[0]) && row_shaped(n) && !seen))
                break;
            for (std::size_t k = i; k < next; ++k) {
                const std::string l = trim(lines[k]);
                if (is_validation_failure(l)) {
                    if (out.runs.back().validation_failure.empty()) {
                        out.runs.back().validation_failure = l.substr(0, 200);
                        out.runs.back().validation_line = k + 1;
                    }
                } else if (!l.empty()) {
                    out.warnings.push_back(fmt::format("line {}: '{}' inside run {}'s table was skipped (not a row)", k + 1,
                                                       l.substr(0, 120), run.run));
                }
            }
            i = next;
            t = std::move(n);
        }
        // A row cut short where the paste ends (a truncated log, a paste cut mid-line; only blank lines, or a code
        // fence and what follows it, after it): the rows before it are read (any run's), the cut row is not (its last
        // field may itself be cut). A whole-looking row there whose average is below its minimum, or printed with fewer
        // decimals than its min and max (BabelStream prints the three alike), was cut inside its average.
        const bool cut_average = t.size() == 5 && paste_ends_after(lines, i) && [&] {
            const std::optional<double> mn = parse_number_text(t[2]), avg = parse_number_text(t[4]);
            if (!mn || !avg)
                return false;
            return *avg < *mn || (decimals_of(t[2]) == decimals_of(t[3]) && decimals_of(t[4]) < decimals_of(t[2]));
        }();
        if ((t.size() < 5 || cut_average) && !out.rows.empty() && paste_ends_after(lines, i)) {
            out.warnings.push_back(fmt::format(
                "line {}: {} row cut short ({}) where the paste ends: not read; the rows before it are", i + 1, t[0],
                cut_average ? "its average below its minimum or missing digits" : fmt::format("{} of 5 fields", t.size())));
            ++i;
            break;
        }
        if (t.size() != 5)
            throw InputError(origin, fmt::format("line {}: {} row with {} fields where 5 are expected (function, "
                                                 "bandwidth, min, max, average; file truncated?); {}",
                                                 i + 1, t[0], t.size(), kExpected));
        BabelStreamRow r;
        r.run = run.run;
        r.function = t[0];
        r.bw_text = t[1];
        r.bw_printed = number(t[1], "bandwidth", i + 1, origin, true);
        r.min_text = t[2];
        r.min_s = number(t[2], "min time", i + 1, origin, true);
        r.max_s = number(t[3], "max time", i + 1, origin, true);
        r.avg_s = number(t[4], "average time", i + 1, origin, true);
        if (r.min_s > r.max_s)
            throw InputError(origin, fmt::format("line {}: min time {} is above max time {}; {}", i + 1, t[2], t[3], kExpected));
        out.rows.push_back(std::move(r));
    }
    --i;
    // A later run's table that the paste ends in before a whole row: that run is not read, the runs before it are.
    if (out.rows.size() == before && !out.rows.empty() && paste_ends_after(lines, i)) {
        out.warnings.push_back(
            fmt::format("line {}: run {}'s table has no whole row (the paste ends there): not read", i + 1, run.run));
        out.runs.pop_back();
        return;
    }
    if (out.rows.size() == before)
        throw InputError(origin, fmt::format("line {}: result table without rows (file truncated?); {}", i + 1, kExpected));
}

// BabelStream --csv: the function table (header function,num_times,n_elements,sizeof,max_m[i]bytes_per_sec,...).
void parse_csv_table(const std::vector<std::string>& lines, std::size_t& i, BabelStreamRun run, BabelStreamFile& out,
                     const std::string& origin) {
    const char sep = lines[i].size() > 8 ? lines[i][8] : ',';
    std::string table;
    std::size_t end = i;
    std::size_t short_rows = 0;  // known functions' rows with fewer fields than the header
    std::string first_short;
    const auto fields = [sep](const std::string& l) { return std::count(l.begin(), l.end(), sep); };
    for (; end < lines.size() && !trim(lines[end]).empty(); ++end) {
        // A row: as many separators as the header and a name first (an unknown function's row is kept).
        const std::string first = trim(lines[end].substr(0, lines[end].find(sep)));
        if (end > i && is_validation_failure(lines[end])) {  // stderr interleaved: noted, kept out of the CSV
            if (run.validation_failure.empty()) {
                run.validation_failure = trim(lines[end]).substr(0, 200);
                run.validation_line = end + 1;
            }
            table += "\n";
            continue;
        }
        if (end > i &&
            (fields(lines[end]) != fields(lines[i]) || first.empty() ||
             !std::all_of(first.begin(), first.end(), [](char c) { return is_word(static_cast<unsigned char>(c)); }))) {
            // A known function's row with fewer fields than the header (a truncated file): not read, and said; whole
            // rows after it (the log went on) are read.
            if (fields(lines[end]) < fields(lines[i]) && is_function(first)) {
                if (short_rows++ == 0)
                    first_short = lines[end];
                out.warnings.push_back(fmt::format("line {}: {} row cut short ({} of {} fields; a truncated file?): not read",
                                                   end + 1, first, fields(lines[end]) + 1, fields(lines[i]) + 1));
                table += "\n";
                continue;
            }
            break;
        }
        table += lines[end] + "\n";
    }
    const std::vector<ingest::CsvRecord> recs = ingest::parse_csv(table, origin, sep);
    const std::vector<std::string>& h = recs.front().fields;
    const auto col = [&](std::initializer_list<const char*> names) -> int {
        for (const char* n : names) {
            const auto it = std::find(h.begin(), h.end(), n);
            if (it != h.end())
                return static_cast<int>(it - h.begin());
        }
        return -1;
    };
    if (col({"gbytes_per_sec", "gibytes_per_sec"}) >= 0)
        throw InputError(
            origin, fmt::format("line {}: BabelStream triad-only output (--triad-only) is not supported; {}", i + 1, kExpected));
    const int c_fn = col({"function"}), c_times = col({"num_times"}), c_n = col({"n_elements"}), c_size = col({"sizeof"}),
              c_bw = col({"max_mbytes_per_sec", "max_mibytes_per_sec"}), c_min = col({"min_runtime"}),
              c_max = col({"max_runtime"}), c_avg = col({"avg_runtime"});
    if (c_fn < 0 || c_times < 0 || c_n < 0 || c_size < 0 || c_bw < 0 || c_min < 0 || c_max < 0 || c_avg < 0)
        throw InputError(origin, fmt::format("line {}: BabelStream CSV header lacks a column of function, num_times, "
                                             "n_elements, sizeof, max_mbytes_per_sec, min_runtime, max_runtime, "
                                             "avg_runtime; {}",
                                             i + 1, kExpected));
    run.mebibytes = h[static_cast<std::size_t>(c_bw)] == "max_mibytes_per_sec";
    const std::size_t before = out.rows.size();
    for (std::size_t k = 1; k < recs.size(); ++k) {
        const auto& f = recs[k].fields;
        const std::size_t line = i + recs[k].line;
        if (f.size() != h.size())
            throw InputError(origin, fmt::format("line {}: {} fields where the header has {} (file truncated?); {}", line,
                                                 f.size(), h.size(), kExpected));
        const auto at = [&](int c) { return f[static_cast<std::size_t>(c)]; };
        BabelStreamRow r;
        r.run = run.run;
        r.function = at(c_fn);
        r.bw_text = at(c_bw);
        r.bw_printed = number(at(c_bw), "bandwidth", line, origin, true);
        r.min_text = at(c_min);
        r.min_s = number(at(c_min), "min_runtime", line, origin, true);
        r.max_s = number(at(c_max), "max_runtime", line, origin, true);
        r.avg_s = number(at(c_avg), "avg_runtime", line, origin, true);
        const double times = number(at(c_times), "num_times", line, origin, true);
        const double n = number(at(c_n), "n_elements", line, origin, true);
        const double size = number(at(c_size), "sizeof", line, origin, true);
        if (n != std::floor(n) || n > 1e18 || (size != 4 && size != 8 && size != 2) || times != std::floor(times))
            throw InputError(origin, fmt::format("line {}: n_elements, sizeof or num_times is not a whole number (sizeof "
                                                 "2, 4 or 8); {}",
                                                 line, kExpected));
        r.n_times = static_cast<std::uint64_t>(times);
        run.n_elements = static_cast<std::uint64_t>(n);
        run.sizeof_t = static_cast<int>(size);
        run.array_bytes = n * size;
        run.array_bytes_halfwidth = 0;
        if (r.min_s > r.max_s)
            throw InputError(origin, fmt::format("line {}: min_runtime is above max_runtime; {}", line, kExpected));
        // The table's last row where the paste ends, its average below its minimum: cut inside its average.
        if (k + 1 == recs.size() && r.avg_s < r.min_s && paste_ends_after(lines, line - 1)) {
            out.warnings.push_back(
                fmt::format("line {}: {} row cut short (its avg_runtime {} below its min_runtime {}) "
                            "where the paste ends: not read",
                            line, r.function, at(c_avg), at(c_min)));
            continue;
        }
        out.rows.push_back(std::move(r));
    }
    if (out.rows.size() == before && short_rows > 0 && before > 0) {
        // Earlier runs were read: this table's elided or cut rows are said, not the whole file refused.
        out.warnings.push_back(
            fmt::format("line {}: every row of this CSV result table has fewer fields than its header "
                        "({} rows, as '{}'): this run is not read, the runs before it are",
                        i + 1, short_rows, first_short.substr(0, 60)));
        i = end - 1;
        return;
    }
    if (out.rows.size() == before && short_rows > 0)
        throw InputError(origin, fmt::format("line {}: every row of the CSV result table has fewer fields than its header "
                                             "({} rows, as '{}': values elided or cut), no row to read; {}",
                                             i + 1, short_rows, first_short.substr(0, 60), kExpected));
    if (out.rows.size() == before)
        throw InputError(origin, fmt::format("line {}: CSV result table without rows (file truncated?); {}", i + 1, kExpected));
    out.runs.push_back(run);
    i = end - 1;
}

// "Device 0: "NVIDIA ..." ... = 8192.0 GB/s PEAK": the device id, name and the printed peak.
std::optional<GpuStreamDevice> gpu_stream_device(const std::string& t, std::size_t line, const std::string& origin) {
    std::string_view v = t;
    if (!eat(v, "Device "))
        return std::nullopt;
    const std::string_view id = eat_while(v, is_digit);
    if (id.empty() || !eat(v, ": \""))
        return std::nullopt;
    const std::size_t close = v.find('"');
    if (close == std::string_view::npos)
        return std::nullopt;
    GpuStreamDevice d;
    d.device = static_cast<int>(std::min<std::uint64_t>(whole(std::string(id), "device", line, origin), 1u << 20));
    d.name = std::string(v.substr(0, close));
    // "= *([0-9.]+) GB/s PEAK": the first " GB/s PEAK" preceded by a number after '=' and blanks.
    for (std::size_t at = t.find(" GB/s PEAK"); at != std::string::npos; at = t.find(" GB/s PEAK", at + 1)) {
        std::size_t start = at;
        while (start > 0 && (is_digit(static_cast<unsigned char>(t[start - 1])) || t[start - 1] == '.'))
            --start;
        std::size_t eq = start;
        while (eq > 0 && t[eq - 1] == ' ')
            --eq;
        if (start < at && eq > 0 && t[eq - 1] == '=') {
            d.peak_GBps = parse_number_text(t.substr(start, at - start));
            break;
        }
    }
    return d;
}

// "STREAM_<KERNEL>_<type>[_gpu_<n>]_buffer_<bytes>_block_<n>": false when the name is not of that form.
bool gpu_stream_name(std::string_view v, std::string& kernel, std::string& dtype, std::string& gpu, std::string& buffer,
                     std::string& block) {
    if (!eat(v, "STREAM_"))
        return false;
    kernel = std::string(eat_while(v, [](unsigned char c) { return c >= 'A' && c <= 'Z'; }));
    if (kernel.empty() || !eat(v, "_"))
        return false;
    dtype = std::string(eat_while(v, [](unsigned char c) { return (c >= 'a' && c <= 'z') || is_digit(c); }));
    if (dtype.empty())
        return false;
    if (eat(v, "_gpu_") && (gpu = std::string(eat_while(v, is_digit))).empty())
        return false;
    if (!eat(v, "_buffer_") || (buffer = std::string(eat_while(v, is_digit))).empty())
        return false;
    if (!eat(v, "_block_") || (block = std::string(eat_while(v, is_digit))).empty())
        return false;
    return v.empty();
}

void parse_gpu_stream(const std::vector<std::string>& lines, BabelStreamFile& out, const std::string& origin) {
    int current_device = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        if (is_validation_failure(t) && out.gs_validation_failure.empty()) {
            out.gs_validation_failure = t.substr(0, 200);
            out.gs_validation_line = i + 1;
        }
        if (const std::optional<GpuStreamDevice> d = gpu_stream_device(t, i + 1, origin)) {
            current_device = d->device;
            out.gs_devices.push_back(*d);
            continue;
        }
        if (t.rfind("STREAM_", 0) != 0)
            continue;
        const std::vector<std::string> tok = split_words(t);
        std::string kernel, dtype, gpu, buffer, block;
        if (tok.size() != 3 || !gpu_stream_name(tok[0], kernel, dtype, gpu, buffer, block))
            throw InputError(origin, fmt::format("line {}: gpu-stream row not of the form STREAM_<KERNEL>_<type>_buffer_"
                                                 "<bytes>_block_<n> <GB/s> <%> (file truncated?); {}",
                                                 i + 1, kExpected));
        GpuStreamRow r;
        r.kernel = kernel;
        if (gpu_stream_arrays(r.kernel) == 0)
            throw InputError(origin, fmt::format("line {}: unknown gpu-stream kernel '{}'; expected COPY, SCALE, ADD or "
                                                 "TRIAD",
                                                 i + 1, r.kernel));
        r.dtype = dtype;
        r.device = !gpu.empty() ? static_cast<int>(std::min<std::uint64_t>(whole(gpu, "device", i + 1, origin), 1u << 20))
                                : current_device;
        r.buffer_bytes = whole(buffer, "buffer size", i + 1, origin);
        r.block = whole(block, "block size", i + 1, origin);
        r.bw_GBps = number(tok[1], "bandwidth", i + 1, origin, true);
        const std::optional<double> pct = parse_number_text(tok[2]);
        if (!pct)
            throw InputError(origin,
                             fmt::format("line {}: '% of peak' value '{}' is not a number; {}", i + 1, tok[2], kExpected));
        if (*pct >= 0)
            r.pct_printed = *pct;
        out.gs_rows.push_back(std::move(r));
    }
}

// "Function    MBytes/sec  Min (sec)   Max         Average": the text table's header; sets `mib`.
bool text_table_header(const std::string& t, bool& mib) {
    const std::vector<std::string> tok = split_words(t);
    // BabelStream up to 5.0 prints "MBytes/sec" ("MiBytes/sec" with --mibibytes); later versions "MB/s"
    // ("MiB/s").
    if (tok.size() != 6 || tok[0] != "Function" ||
        (tok[1] != "MBytes/sec" && tok[1] != "MiBytes/sec" && tok[1] != "MB/s" && tok[1] != "MiB/s") || tok[2] != "Min" ||
        tok[3] != "(sec)" || tok[4] != "Max" || tok[5] != "Average")
        return false;
    mib = tok[1] == "MiBytes/sec" || tok[1] == "MiB/s";
    return true;
}

}  // namespace

int babelstream_arrays(const std::string& function) {
    if (function == "Copy" || function == "Mul" || function == "Dot")
        return 2;
    // BabelStream 5 counts its Init (writes a, b, c) and Read (copies a, b, c back to the host) phases as 3 arrays each
    // (main.cpp: fmt_bw(3, initElapsedS), fmt_bw(3, readElapsedS)). alpaka's InitKernel row carries its own count
    // (BabelStreamRow::arrays, from its DataUsage).
    if (function == "Add" || function == "Triad" || function == "Init" || function == "Read")
        return 3;
    if (function == "Nstream")
        return 4;
    // GPU-STREAM 1.0's HIP variant (ROCm HIP-Examples, hip-stream.cpp): c = a + b + d + e, four arrays
    // read and one written ("sizes[] = {2, 2, 5, 3} * DATATYPE_SIZE * ARRAY_SIZE"; its log prints
    // "Total size" as five arrays).
    if (function == "Add4")
        return 5;
    return 0;
}

int gpu_stream_arrays(const std::string& kernel) {
    if (kernel == "COPY" || kernel == "SCALE")
        return 2;
    if (kernel == "ADD" || kernel == "TRIAD")
        return 3;
    return 0;
}

bool is_validation_failure(std::string_view line) {
    std::string low(line.substr(0, std::min<std::size_t>(line.size(), 4096)));
    std::transform(low.begin(), low.end(), low.begin(),
                   [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
    return low.find("validation failed") != std::string::npos || low.find("validation failure") != std::string::npos ||
           low.find("failed validation") != std::string::npos;
}

BabelStreamFile parse_babelstream(const std::string& text_raw, const std::string& origin) {
    // A coloured terminal's escape sequences are not the program's.
    const bool coloured = ingest::has_terminal_escapes(text_raw);
    const std::string decolored = coloured ? ingest::strip_terminal_escapes(text_raw) : std::string();
    const std::string& text = coloured ? decolored : text_raw;
    // Lines a document converter wrapped in inline markup (":mark:`Copy 4255995.148 ...`") read as the program's.
    // Unicode blanks (a web page's no-break spaces) read as the blanks BabelStream printed; one between a digit and
    // three digits as a locale's thousands separator (BabelStream prints none), said below.
    ingest::BlankReport blanks;
    const std::string ascii = ingest::has_unicode_blanks(text) ? ingest::ascii_blanks(text, blanks) : std::string();
    const std::string& plain = ascii.empty() ? text : ascii;
    std::vector<std::string> lines =
        plain.find('`') == std::string::npos ? split_lines(plain) : split_lines(ingest::unwrap_inline_markup(plain));
    // Output captured through a launcher (srun -l, mpirun --tag-output, a logger's time stamps): each
    // line without its prefix.
    for (std::string& l : lines)
        l = without_launcher_prefix(l);
    if (const std::size_t words = prefix_words(lines); words > 0)
        for (std::string& l : lines)
            if (const std::string_view rest = after_words(l, words);
                !starts_babelstream_line(trim(l)) && (starts_babelstream_line(rest) || looks_like_table_row(rest)))
                l = std::string(rest);
    BabelStreamFile out;
    if (std::string w = ingest::blank_conflict_warning(blanks); !w.empty())
        out.warnings.push_back(std::move(w));
    if (blanks.thousands > 0)
        out.warnings.push_back(
            fmt::format("line {}: a no-break space between digits read as a thousands separator ('{}' read as {}{}; BabelStream "
                        "prints none: the text went through a locale-aware tool)",
                        blanks.first_line, blanks.first_text, blanks.first_read,
                        blanks.thousands > 1 ? fmt::format(", and {} more", blanks.thousands - 1) : std::string()));
    BabelStreamRun cur;
    bool triad_only = false;
    bool gpu_stream = false;  // the current run's banner is "GPU-STREAM"
    // A validation failure is printed on stderr, before its run's table (BabelStream checks the
    // results, then prints the timings) or, with stdout buffered into a file, anywhere before it: it
    // belongs to the next table; one after the last table belongs to the last run, unless a banner came between
    // (a later run that printed no table: the failure is that run's, not the last table's).
    std::string failure;
    std::size_t failure_line = 0;
    std::size_t banner_line = 0;        // the first "BabelStream" banner, for a run that printed no table
    std::size_t later_banner_line = 0;  // a banner after the last table, 0 when none
    std::size_t table_pending = 0;      // the last banner's line while no table has followed it
    std::size_t last_banner = 0;        // the last banner's line
    std::size_t listing_line = 0;       // the first --list device listing's "Devices:" line
    const auto begin_run = [&] {
        cur.run = static_cast<int>(out.runs.size()) + 1;
        cur.validation_failure = failure;
        cur.validation_line = failure_line;
        failure.clear();
        failure_line = 0;
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        bool mib = false;
        if (is_validation_failure(t)) {
            if (failure.empty()) {
                failure = t.substr(0, 200);
                failure_line = i + 1;
            }
        } else if (t == "BabelStream" || t == "BabelStream Fortran" || t == "GPU-STREAM") {
            // The run before this banner printed its banner and no table (it crashed or was stopped before its
            // timings: "Aborted (core dumped)"): said, not dropped unseen. (A run after the last table is said below.)
            if (table_pending > 0)
                out.warnings.push_back(fmt::format(
                    "line {}: a run starts and prints no table before the next run's banner "
                    "on line {} (it stopped before its timings, or runs printing at once interleave): nothing of it is read",
                    table_pending, i + 1));
            table_pending = i + 1;
            last_banner = i + 1;
            if (banner_line == 0)
                banner_line = i + 1;
            if (!out.runs.empty() && later_banner_line == 0)
                later_banner_line = i + 1;
            cur = BabelStreamRun{};  // a new run: forget the previous one's context
            gpu_stream = t == "GPU-STREAM";
        } else if (text_table_header(t, mib)) {
            later_banner_line = 0;
            table_pending = 0;
            begin_run();
            cur.mebibytes = mib;
            // An exact element count (GPU-STREAM 1.0's work items) outranks the rounded "Array size".
            if (cur.n_elements && cur.sizeof_t && *cur.n_elements <= (std::uint64_t{1} << 50)) {
                cur.array_bytes = static_cast<double>(*cur.n_elements * static_cast<std::uint64_t>(*cur.sizeof_t));
                cur.array_bytes_halfwidth = 0;
            }
            out.runs.push_back(cur);
            parse_text_table(lines, i, cur, out, origin);
            cur.phase_line = 0;  // the next run's own, if it prints them
            out.format = "BabelStream text";
        } else if (t.rfind("function", 0) == 0 && t.find("num_times") != std::string::npos) {
            later_banner_line = 0;
            table_pending = 0;
            begin_run();
            parse_csv_table(lines, i, cur, out, origin);
            cur.phase_line = 0;  // the next run's own, if it prints them
            out.format = "BabelStream CSV";
        } else if (detail::alpaka_table_header(t)) {
            later_banner_line = 0;
            table_pending = 0;
            begin_run();
            detail::parse_alpaka_table(lines, i, cur, out, origin);
            cur.phase_line = 0;  // the next run's own, if it prints them
            out.format = "alpaka babelstream (Catch2 benchmark)";
        } else if (detail::alpaka_context(t, cur)) {
            gpu_stream = false;
        } else if (t.rfind("Init:", 0) == 0 || t.rfind("Read:", 0) == 0 ||
                   (t.rfind("phase,", 0) == 0 && t.find("n_elements") != std::string::npos)) {
            // BabelStream 5's Init and Read timings (text, or --csv's phase table before the function table): noted
            // with the run, not read as rows (BabelStreamRun::phase_line); the CSV's "Init,..." and "Read,..." rows
            // after its header are context lines that read_context passes over.
            if (cur.phase_line == 0)
                cur.phase_line = i + 1;
        } else if (t == "Devices:" && last_banner > 0 && table_pending == last_banner) {
            // BabelStream --list: the banner, "Devices:" and one "N: name" line per device, then it exits. A device
            // listing, not a run that stopped before its table.
            table_pending = 0;
            if (listing_line == 0)
                listing_line = i + 1;
            if (later_banner_line == last_banner)
                later_banner_line = 0;
            if (banner_line == last_banner)
                banner_line = 0;
        } else if (t.rfind("Running triad", 0) == 0 || t.rfind("Bandwidth (GB/s)", 0) == 0 ||
                   t.rfind("Bandwidth (GiB/s)", 0) == 0) {
            triad_only = true;
        } else {
            read_context(t, cur, gpu_stream);
        }
    }
    if (!out.rows.empty()) {
        // A run after the last table that printed its banner and no table (it stopped before its timings): said;
        // the runs with tables are read.
        if (later_banner_line > 0) {
            out.warnings.push_back(
                !failure.empty() && failure_line > later_banner_line
                    ? fmt::format("line {}: a run starts and prints no table; its validation failure on line {} ('{}') "
                                  "is that run's, not run {}'s",
                                  later_banner_line, failure_line, failure, out.runs.back().run)
                    : fmt::format("line {}: a run starts and prints no table (it stopped before its timings?)",
                                  later_banner_line));
            if (failure_line > later_banner_line)
                failure.clear();
        }
        if (!failure.empty() && out.runs.back().validation_failure.empty()) {
            out.runs.back().validation_failure = failure;
            out.runs.back().validation_line = failure_line;
        }
        return out;
    }
    if (triad_only)
        throw InputError(origin, fmt::format("BabelStream triad-only output (--triad-only) is not supported; {}", kExpected));
    parse_gpu_stream(lines, out, origin);
    // A run that stopped before its table (a failed validation's message with the table cut away, an
    // allocation failure or a crash after the banner) says so: it measured nothing to account for.
    if (out.gs_rows.empty() && !failure.empty())
        throw InputError(origin, fmt::format("no BabelStream result table: the run printed '{}' (line {}) and no table; "
                                             "nothing to account for; {}",
                                             failure, failure_line, kExpected));
    if (out.gs_rows.empty() && banner_line > 0)
        throw InputError(origin, fmt::format("no BabelStream result table: the run's banner is on line {} but no "
                                             "'Function MBytes/sec ...' table follows (the run stopped before its "
                                             "timings?); {}",
                                             banner_line, kExpected));
    if (out.gs_rows.empty() && listing_line > 0)
        throw InputError(origin, fmt::format("no BabelStream result table: only a device listing (--list, line {}), which "
                                             "measures nothing; {}",
                                             listing_line, kExpected));
    if (out.gs_rows.empty())
        throw InputError(origin, fmt::format("no BabelStream result table or gpu-stream rows found; {}", kExpected));
    out.format = "SuperBench gpu-stream";
    return out;
}

std::string babelstream_device_name(const BabelStreamFile& f) {
    for (const BabelStreamRun& r : f.runs)
        if (!r.device.empty())
            return r.device;
    for (const GpuStreamDevice& d : f.gs_devices)
        if (!d.name.empty())
            return d.name;
    return "";
}

}  // namespace bwacct
