// Markers each tool always writes (see file_kind.h). Each rule names the lines or keys it looks for;
// a marker must be one the other kinds never print, so that a hint is never a wrong one.
#include "bwacct/file_kind.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace bwacct {

namespace {

bool has(std::string_view text, std::string_view marker) { return text.find(marker) != std::string_view::npos; }

// The first non-blank character (a UTF-8 byte-order mark skipped).
char first_char(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    const auto it = std::find_if(text.begin(), text.end(), [](char c) { return !std::isspace(static_cast<unsigned char>(c)); });
    return it == text.end() ? '\0' : *it;
}

bool json_text(std::string_view head) {
    const char c = first_char(head);
    return c == '{' || c == '[';
}

// PyTorch profiler / Kineto Chrome trace: the "traceEvents" array (or a bare array of "ph" events).
bool kineto_trace(std::string_view head) {
    return json_text(head) && (has(head, "\"traceEvents\"") || (has(head, "\"ph\"") && has(head, "\"ts\"")));
}

// Hugging Face config.json (transformers: model_type / architectures; diffusers: _class_name).
bool model_config(std::string_view head) {
    return json_text(head) && !kineto_trace(head) &&
           (has(head, "\"model_type\"") || has(head, "\"architectures\"") || has(head, "\"_class_name\""));
}

// nccl-tests / rccl-tests: the header's "# nThread", the table's out-of-place/in-place heading, the footer.
bool nccl_tests(std::string_view head) {
    return has(head, "# nThread") || (has(head, "out-of-place") && has(head, "in-place")) || has(head, "# Avg bus bandwidth") ||
           has(head, "busbw");
}

// BabelStream (text and --csv) and SuperBench gpu-stream.
bool babelstream(std::string_view head) {
    return has(head, "BabelStream") || (has(head, "Function") && has(head, "MBytes/sec")) ||
           (has(head, "Function") && has(head, "GBytes/sec")) || has(head, "function,num_times") || has(head, "STREAM_COPY");
}

// nsys stats tables (every report has a "Total Time (ns)" or "Time (%)" column; older ones "Time(%)"),
// nvprof's summary and rocprof's stats (TotalDurationNs).
bool nsys_stats(std::string_view head) {
    return has(head, "Total Time (ns)") || has(head, "Time (%)") || has(head, "Time(%)") || has(head, "TotalDurationNs");
}

// ncu --csv (the "ID","Process ID" header) or its text output (==PROF== lines, "Section:" blocks).
bool ncu_export(std::string_view head) {
    return has(head, "\"ID\",\"Process ID\"") || has(head, "==PROF==") || has(head, "Section: GPU Speed Of Light");
}

}  // namespace

std::vector<FileKind> sniff_file_kinds(std::string_view head) {
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
        return {FileKind::gzip};
    std::vector<FileKind> out;
    if (kineto_trace(head))
        out.push_back(FileKind::kineto_trace);
    if (model_config(head))
        out.push_back(FileKind::model_config);
    if (json_text(head)) {  // JSON: text markers inside it mean nothing
        // nccl-tests -J: "results" rows with "bus_bw" (util.cu's JSON writer).
        if (has(head, "\"results\"") && has(head, "\"bus_bw\""))
            out.push_back(FileKind::nccl_tests);
        return out;
    }
    if (nccl_tests(head))
        out.push_back(FileKind::nccl_tests);
    if (babelstream(head))
        out.push_back(FileKind::babelstream);
    if (nsys_stats(head))
        out.push_back(FileKind::nsys_stats);
    if (ncu_export(head))
        out.push_back(FileKind::ncu_export);
    return out;
}

std::vector<FileKind> sniff_file_kinds_at(const std::string& path) {
    constexpr std::size_t kHead = 64 * 1024;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::string head(kHead, '\0');
    in.read(head.data(), static_cast<std::streamsize>(kHead));
    head.resize(static_cast<std::size_t>(in.gcount()));
    std::vector<FileKind> kinds = sniff_file_kinds(head);
    if (kinds != std::vector<FileKind>{FileKind::gzip})
        return kinds;
    // The first 64 KiB of the decompressed stream (a truncated member inflates as far as it goes).
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return kinds;
    std::string text(kHead, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(head.data());
    zs.avail_in = static_cast<uInt>(head.size());
    zs.next_out = reinterpret_cast<Bytef*>(text.data());
    zs.avail_out = static_cast<uInt>(text.size());
    inflate(&zs, Z_SYNC_FLUSH);
    text.resize(text.size() - zs.avail_out);
    inflateEnd(&zs);
    for (FileKind k : sniff_file_kinds(text))
        if (k != FileKind::gzip)
            kinds.push_back(k);
    return kinds;
}

std::string file_kind_name(FileKind kind) {
    switch (kind) {
        case FileKind::gzip:
            return "gzip-compressed";
        case FileKind::kineto_trace:
            return "a PyTorch profiler (Kineto) trace";
        case FileKind::model_config:
            return "a model config.json";
        case FileKind::nccl_tests:
            return "nccl-tests output";
        case FileKind::babelstream:
            return "BabelStream output";
        case FileKind::nsys_stats:
            return "nsys stats (or nvprof/rocprof statistics) output";
        case FileKind::ncu_export:
            return "Nsight Compute (ncu) output";
    }
    return "";
}

std::string file_kind_command(FileKind kind) {
    switch (kind) {
        case FileKind::gzip:
            return "";
        case FileKind::kineto_trace:
            return "bwacct ingest torch-trace FILE";
        case FileKind::model_config:
            return "bwacct model --hf-config FILE";
        case FileKind::nccl_tests:
            return "bwacct ingest nccl-tests FILE";
        case FileKind::babelstream:
            return "bwacct ingest babelstream FILE";
        case FileKind::nsys_stats:
            return "bwacct ingest nsys FILE";
        case FileKind::ncu_export:
            return "bwacct ingest ncu FILE";
    }
    return "";
}

}  // namespace bwacct
