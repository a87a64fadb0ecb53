// JsonElements: see json_elements.h.
#include "json_elements.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace bwacct::ingest {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A token that is not an object, array or string (a number, true, false, null, or garbage) ends here.
bool ends_token(char c) { return is_space(c) || c == ',' || c == ']' || c == '}' || c == ':'; }

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
        if (!refill(keep, cur))
            return -1;
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
    int depth = 0;
    bool in_string = false;
    for (;;) {
        if (i == end_ && !refill(start, i))
            return {};  // the input ends inside the value
        if (in_string) {
            // The next quote not escaped: one preceded by an even run of backslashes (the run stops at
            // the opening quote at worst, which lies at or after `start`).
            const char* q = static_cast<const char*>(std::memchr(buf_.data() + i, '"', end_ - i));
            if (q == nullptr) {
                i = end_;
                continue;
            }
            std::size_t j = static_cast<std::size_t>(q - buf_.data()), k = j;
            while (k > start && buf_[k - 1] == '\\')
                --k;
            i = j + 1;
            if ((j - k) % 2 == 1)
                continue;
            in_string = false;
            if (depth == 0)
                break;
            continue;
        }
        const char c = buf_[i++];
        if (c == '"')
            in_string = true;
        else if (c == '{' || c == '[')
            ++depth;
        else if ((c == '}' || c == ']') && --depth == 0)
            break;
    }
    pos_ = i;
    return {buf_.data() + start, i - start};
}

}  // namespace bwacct::ingest
