// Renderers: a Sink receives records one by one and writes them at once (sweeps stream).
#pragma once
#include <cstdio>
#include <memory>
#include <string_view>

#include "bwacct/record.h"

namespace bwacct {

enum class Format { table, json, jsonl, csv, md };
Format parse_format(std::string_view s);  // throws InputError naming --format

struct SinkOptions {
    bool explain = false;  // include each formula with its numbers
    bool color = false;    // ANSI colour (only on a TTY, never with NO_COLOR)
    bool sweep = false;    // more than one record will come
    bool header = true;    // CSV and Markdown: print the header row (--no-header: appending in a loop)
};

class Sink {
public:
    virtual ~Sink() = default;
    virtual void emit(const Record& r) = 0;
    virtual void finish() {}
};

std::unique_ptr<Sink> make_sink(Format f, std::FILE* out, const SinkOptions& opt);

}  // namespace bwacct
