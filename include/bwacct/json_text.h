// The text of a JSON document for output. Strings from the files a user brings may hold bytes that are not
// UTF-8 (a device or kernel name in another encoding): they are written as U+FFFD instead of failing the run.
#pragma once
#include <string>

namespace bwacct::detail {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace bwacct::detail
