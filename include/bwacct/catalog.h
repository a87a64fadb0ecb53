// The GPU catalog: configs/gpus.json, plus entries added or overridden by --gpu-file.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "bwacct/gpu.h"

namespace bwacct {

class Catalog {
public:
    // Parses catalog JSON. `origin` names the file in errors (InputError with option = origin).
    static Catalog parse(std::string_view json_text, const std::string& origin);
    // Reads and parses a catalog file. `option` names the option that gave the path.
    static Catalog load(const std::string& path, const std::string& option);
    // The catalog shipped with bwacct: $BWACCT_CATALOG, else configs/gpus.json as compiled into the
    // binary at build time (src/shipped/; no file is read, none beside the binary is looked for).
    static Catalog load_default();
    // A catalog of entries already read and validated (the compiled-in configs/gpus.json).
    static Catalog from_entries(std::vector<GpuSpec> entries);

    // Adds entries; an entry with an existing id replaces it. Returns the ids whose entry changed
    // (an identical entry is no change), in the order of `other`, so the caller can say which entry
    // wins (the one from `other`).
    std::vector<std::string> merge(const Catalog& other);
    const std::vector<GpuSpec>& gpus() const { return gpus_; }
    // The entry for `id`; throws InputError naming `option` and listing the ids.
    const GpuSpec& get(std::string_view id, const std::string& option) const;
    std::string ids() const;
    // The entries named by `list`: comma-separated ids, or "all". Throws InputError naming `option`.
    std::vector<const GpuSpec*> select(std::string_view list, const std::string& option) const;
    // The entry whose name or one of whose `match` strings equals the device name (exact, first),
    // else the one whose name or `match` string is the longest found in it as whole words with no
    // further word after it, only punctuation or a parenthesised remark ("NVIDIA L4" does not
    // claim "NVIDIA L40S", "NVIDIA H200" does not claim "NVIDIA H200 NVL", but "NVIDIA H100 SXM5
    // 80GB" claims "NVIDIA H100 SXM5 80GB (simulated)"); nullptr when none matches.
    const GpuSpec* match(std::string_view device_name) const;
    // When match() finds none: the entries whose name or a match string begins with the device name as
    // whole words, ignoring case ("NVIDIA H100" → the H100 SXM, PCIe and NVL entries), so a refusal can
    // list them; empty when none does. A name that lists several models with " / " ("AMD Instinct
    // MI250X / MI250") gives the entry each of them matches.
    std::vector<const GpuSpec*> candidates(std::string_view device_name) const;

private:
    std::vector<GpuSpec> gpus_;
};

}  // namespace bwacct
