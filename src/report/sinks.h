// The concrete sinks behind make_sink (internal to src/report).
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bwacct/report.h"
#include "cell_quote.h"
#include "flatten.h"

namespace bwacct::detail {

class JsonSink : public Sink {
public:
    JsonSink(std::FILE* out, SinkOptions opt) : out_(out), opt_(opt) {}
    void emit(const Record& r) override;
    void finish() override;

private:
    std::FILE* out_;
    SinkOptions opt_;
    std::size_t count_ = 0;
};

class JsonlSink : public Sink {
public:
    JsonlSink(std::FILE* out, SinkOptions opt) : out_(out), opt_(opt) {}
    void emit(const Record& r) override;

private:
    std::FILE* out_;
    SinkOptions opt_;
};

// CSV (RFC 4180 quoting, one header) and Markdown (one pipe table) share the flat rows.
class RowSink : public Sink {
public:
    enum class Style { csv, markdown };
    RowSink(std::FILE* out, Style style, bool header = true) : out_(out), style_(style), header_done_(!header) {}
    void emit(const Record& r) override;

private:
    void line(const std::vector<std::string>& cells);
    std::FILE* out_;
    Style style_;
    bool header_done_ = false;
};

// The terminal view: a detailed block for one record; for a sweep, one line per GPU with the verdict
// over the sweep, the columns every row shares on a header line, rows sized to their content, and the
// best and worst point at the end. A sweep's rows are held (up to kTableRows) to size the columns;
// past that they stream in the layout of the held ones.
class TableSink : public Sink {
public:
    static constexpr std::size_t kTableRows = 100'000;
    TableSink(std::FILE* out, SinkOptions opt) : out_(out), opt_(opt) {}
    void emit(const Record& r) override;
    void finish() override;

private:
    struct GpuSummary {
        std::string gpu;
        std::size_t points = 0;
        std::vector<std::pair<std::string, std::size_t>> bounds;  // "compute" → points bound there
        double floor_min = 0, floor_max = 0;
        std::optional<double> x_min, x_max;
    };
    struct Extreme {
        double score = 0;
        std::vector<std::pair<std::string, std::string>> params;
        std::string gpu, text;
    };
    void detailed(const Record& r);
    void sweep_row(const Record& r);
    void lay_out();  // verdict lines, shared columns, header and the held rows
    void print_row(const Row& row);
    std::FILE* out_;
    SinkOptions opt_;
    std::string source_;
    std::vector<Row> held_;
    bool laid_out_ = false;
    std::vector<bool> shared_;
    std::vector<std::string> names_;
    std::vector<std::size_t> width_;
    std::vector<GpuSummary> gpus_;
    std::optional<Extreme> best_, worst_;
    // Points whose time is below the modelled floor (x_floor < 1): left out of best and worst, counted,
    // and the fastest of them shown on its own line (the time or the model is off, not a good point).
    std::optional<Extreme> below_;
    std::size_t below_count_ = 0;
};

}  // namespace bwacct::detail
