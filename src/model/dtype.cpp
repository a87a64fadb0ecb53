#include "bwacct/dtype.h"

#include <array>
#include <string>

#include "bwacct/error.h"
#include "bwacct/suggest.h"

namespace bwacct {
namespace {

struct DTypeInfo {
    DType type;
    std::string_view name;
    unsigned bits;
    std::string_view peak;
    unsigned scale_block;  // elements per 1-byte block scale, 0 = none
};

constexpr std::array<DTypeInfo, 11> kTypes{{
    {DType::fp64, "fp64", 64, "fp64", 0},
    {DType::fp32, "fp32", 32, "fp32", 0},
    {DType::tf32, "tf32", 32, "tf32", 0},
    {DType::bf16, "bf16", 16, "bf16", 0},
    {DType::fp16, "fp16", 16, "fp16", 0},
    {DType::fp8_e4m3, "fp8_e4m3", 8, "fp8", 0},
    {DType::fp8_e5m2, "fp8_e5m2", 8, "fp8", 0},
    {DType::fp4, "nvfp4", 4, "fp4", 16},
    {DType::mxfp4, "mxfp4", 4, "fp4", 32},
    {DType::int8, "int8", 8, "int8", 0},
    {DType::int4, "int4", 4, "int4", 0},
}};

const DTypeInfo& info(DType t) { return kTypes[static_cast<std::size_t>(t)]; }

}  // namespace

DType parse_dtype(std::string_view name, const std::string& option) {
    struct Alias {
        std::string_view name;
        DType type;
    };
    static constexpr std::array<Alias, 8> kAliases{{{"fp8", DType::fp8_e4m3},
                                                    {"e4m3", DType::fp8_e4m3},
                                                    {"e5m2", DType::fp8_e5m2},
                                                    {"fp4", DType::fp4},
                                                    {"float", DType::fp32},
                                                    {"half", DType::fp16},
                                                    {"double", DType::fp64},
                                                    {"bfloat16", DType::bf16}}};
    // Case-insensitive (--dtype BF16); an unknown name gets the nearest ones.
    std::vector<std::string> names;
    for (const auto& t : kTypes) {
        if (equal_ignoring_case(t.name, name))
            return t.type;
        names.emplace_back(t.name);
    }
    for (const auto& a : kAliases) {
        if (equal_ignoring_case(a.name, name))
            return a.type;
        names.emplace_back(a.name);
    }
    throw InputError(option, "unknown dtype '" + std::string(name) + "'" + did_you_mean(name, names) +
                                 "; accepted: " + std::string(dtype_choices()));
}

std::string_view dtype_choices() {
    return "fp64, fp32, tf32, bf16, fp16, fp8 (= fp8_e4m3), fp8_e5m2, fp4 (= nvfp4), mxfp4, int8, int4";
}

std::string_view dtype_name(DType t) { return info(t).name; }
unsigned dtype_bits(DType t) { return info(t).bits; }
std::string_view peak_key(DType t) { return info(t).peak; }

Exact storage_bytes(DType t, Exact n) {
    const DTypeInfo& i = info(t);
    Exact payload = ceil_div(n * Exact(i.bits), Exact(8));
    if (i.scale_block == 0)
        return payload;
    return payload + ceil_div(n, Exact(i.scale_block));
}

}  // namespace bwacct
