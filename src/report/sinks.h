// The concrete sinks behind make_sink (internal to src/report).
#pragma once
#include <cstdio>
#include <string>
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
    RowSink(std::FILE* out, Style style) : out_(out), style_(style) {}
    void emit(const Record& r) override;

private:
    void line(const std::vector<std::string>& cells);
    std::FILE* out_;
    Style style_;
    bool header_done_ = false;
};

// The terminal view: a detailed block for one record, fixed-width rows for a sweep.
class TableSink : public Sink {
public:
    TableSink(std::FILE* out, SinkOptions opt) : out_(out), opt_(opt) {}
    void emit(const Record& r) override;

private:
    void detailed(const Record& r);
    void sweep_row(const Record& r);
    std::FILE* out_;
    SinkOptions opt_;
    bool header_done_ = false;
};

}  // namespace bwacct::detail
