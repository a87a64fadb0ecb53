// JsonElements: see json_elements.h.
#include "json_elements.h"

#include <algorithm>
#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <utility>

namespace bwacct::ingest {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A token that is not an object, array or string (a number, true, false, null, or garbage) ends here.
bool ends_token(char c) { return is_space(c) || c == ',' || c == ']' || c == '}' || c == ':'; }

// Bit j set where byte j of the block (64 bytes; `n` of them valid) is a quote, a backslash, an
// opening bracket (`{` or `[`: both are 0x5B or 0x7B with bit 5 set) or a closing one (`}` `]`).
struct Masks {
    std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

#if defined(__SSE2__)
Masks block_masks(const char* p, std::size_t n) {  // reads 64 bytes: the buffer's padding covers the tail
    Masks m;
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), bit5 = _mm_set1_epi8(0x20),
                  open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    for (int k = 0; k < 4; ++k) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        const __m128i folded = _mm_or_si128(v, bit5);
        const auto bits = [&](__m128i eq) {
            return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(eq))) << (16 * k);
        };
        m.quote |= bits(_mm_cmpeq_epi8(v, quote));
        m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
        m.open |= bits(_mm_cmpeq_epi8(folded, open));
        m.close |= bits(_mm_cmpeq_epi8(folded, close));
    }
    if (n < 64) {
        const std::uint64_t valid = (std::uint64_t{1} << n) - 1;
        m.quote &= valid;
        m.backslash &= valid;
        m.open &= valid;
        m.close &= valid;
    }
    return m;
}
#else
Masks block_masks(const char* p, std::size_t n) {
    Masks m;
    for (std::size_t j = 0; j < n; ++j) {
        const std::uint64_t bit = std::uint64_t{1} << j;
        const char c = p[j];
        m.quote |= c == '"' ? bit : 0;
        m.backslash |= c == '\\' ? bit : 0;
        m.open |= (c == '{' || c == '[') ? bit : 0;
        m.close |= (c == '}' || c == ']') ? bit : 0;
    }
    return m;
}
#endif

// Bit j set where an odd number of the quotes at or before j are set: inside a string (its opening
// quote included, its closing quote not).
std::uint64_t prefix_xor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

// The scan of one object or array, block by block: where the string state, a pending escape and the
// nesting depth carry over from one block to the next.
struct BlockState {
    std::uint64_t in_string = 0;  // all ones when the previous block ended inside a string
    bool escape_next = false;     // the previous block ended with an unescaped backslash
    int depth = 0;

    // The index in the block of the bracket that closes the value, or `n` when it is not in it.
    std::size_t close(const char* p, std::size_t n) {
        const Masks m = block_masks(p, n);
        std::uint64_t escaped = 0;
        if (m.backslash != 0 || escape_next) {  // rare: walk the block's backslashes one by one
            for (std::size_t j = 0; j < n; ++j) {
                const std::uint64_t bit = std::uint64_t{1} << j;
                if (escape_next) {
                    escaped |= bit;
                    escape_next = false;
                } else if ((m.backslash & bit) != 0) {
                    escape_next = true;
                }
            }
        }
        const std::uint64_t strings = prefix_xor(m.quote & ~escaped) ^ in_string;
        in_string = (strings >> 63) != 0 ? ~std::uint64_t{0} : 0;
        std::uint64_t brackets = (m.open | m.close) & ~strings;
        while (brackets != 0) {
            const auto j = static_cast<std::size_t>(std::countr_zero(brackets));
            brackets &= brackets - 1;
            depth += (m.open >> j & 1) != 0 ? 1 : -1;
            if (depth == 0)
                return j;
        }
        return n;
    }
};

}  // namespace

JsonElements::JsonElements(Read read, std::size_t block) : read_(std::move(read)), buf_(block + kPadding), cap_(block) {}

bool JsonElements::refill(std::size_t& keep, std::size_t& cur) {
    if (eof_)
        return false;
    if (keep > 0) {
        std::memmove(buf_.data(), buf_.data() + keep, end_ - keep);
        base_ += keep;
        end_ -= keep;
        cur -= keep;
        if (pos_ >= keep)
            pos_ -= keep;
        keep = 0;
    }
    if (end_ == cap_) {  // one value fills the buffer: make room (memory: the largest value, doubled)
        cap_ *= 2;
        buf_.resize(cap_ + kPadding);
    }
    const std::size_t got = read_(buf_.data() + end_, cap_ - end_);
    if (got == 0) {
        eof_ = true;
        return false;
    }
    end_ += got;
    return true;
}

int JsonElements::peek() {
    for (;;) {
        while (pos_ < end_ && is_space(buf_[pos_]))
            ++pos_;
        if (pos_ < end_)
            return static_cast<unsigned char>(buf_[pos_]);
        std::size_t keep = pos_, cur = pos_;
        if (!refill(keep, cur)) {
            ended_ = true;
            return -1;
        }
    }
}

std::string_view JsonElements::ahead(std::size_t n) {
    while (end_ - pos_ < n) {
        std::size_t keep = pos_, cur = pos_;
        if (!refill(keep, cur))
            break;
    }
    return {buf_.data() + pos_, std::min(n, end_ - pos_)};
}

std::string_view JsonElements::value() {
    if (peek() == -1) {
        value_offset_ = offset();
        return {};
    }
    std::size_t start = pos_, i = pos_;
    value_offset_ = base_ + start;
    const char first = buf_[i];
    if (first != '{' && first != '[' && first != '"') {  // a bare token: up to a delimiter or the end
        for (;;) {
            while (i < end_ && !ends_token(buf_[i]))
                ++i;
            if (i < end_ || !refill(start, i))
                break;
        }
        pos_ = i;
        return {buf_.data() + start, i - start};
    }
    if (first == '"') {  // a string (a key): up to its closing quote
        bool escaped = false;
        for (++i;; ++i) {
            if (i == end_ && !refill(start, i)) {
                ended_ = true;
                return {};
            }
            const char c = buf_[i];
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                break;
        }
        pos_ = i + 1;
        return {buf_.data() + start, i + 1 - start};
    }
    // An object or array: 64-byte blocks at a time (block_masks), up to the bracket that closes it.
    BlockState state;
    for (;;) {
        if (end_ - i < 64) {
            while (end_ - i < 64 && refill(start, i))
                ;
            if (i == end_) {  // the input ends inside the value
                ended_ = true;
                return {};
            }
        }
        const std::size_t n = std::min<std::size_t>(64, end_ - i);
        const std::size_t at = state.close(buf_.data() + i, n);
        if (at < n) {
            i += at + 1;
            break;
        }
        i += n;
    }
    pos_ = i;
    return {buf_.data() + start, i - start};
}

}  // namespace bwacct::ingest
