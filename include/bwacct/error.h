// Errors the engine reports. InputError: the user gave something the tool cannot accept (exit 2).
#pragma once
#include <stdexcept>
#include <string>

namespace bwacct {

// Bad input. `option` names what was wrong ("--m", "--gpu-file", a file path); `what()` is one line.
class InputError : public std::runtime_error {
public:
    InputError(std::string option, const std::string& message)
        : std::runtime_error(option.empty() ? message : option + ": " + message), option_(std::move(option)) {}
    const std::string& option() const { return option_; }

private:
    std::string option_;
};

// A count (FLOPs, bytes) does not fit in 64 bits. Thrown by Exact; callers add the option names.
class OverflowError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace bwacct
