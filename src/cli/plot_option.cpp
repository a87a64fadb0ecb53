#include "plot_option.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "bwacct/error.h"

namespace bwacct::cli {

namespace fs = std::filesystem;

namespace {

const std::string kPlot = "--plot";

bool ends_with_svg(const std::string& path) {
    if (path.size() < 5)  // at least one character before ".svg"
        return false;
    std::string ext = path.substr(path.size() - 4);
    for (char& c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".svg" && path[path.size() - 5] != '/';
}

}  // namespace

OptionSpec plot_option() {
    return {kPlot, "write an SVG chart of the results to this file (roofline; time and busbw for a collective size sweep)", ""};
}

std::string checked_plot_path(const Args& args) {
    if (!args.declared(kPlot))
        return {};
    const std::string& path = args.get(kPlot);
    if (path.empty())
        return {};
    if (!ends_with_svg(path))
        throw InputError(kPlot,
                         fmt::format("'{}' is not an SVG file name; give a path ending in .svg (e.g. roofline.svg)", path));
    std::error_code ec;
    if (fs::is_directory(path, ec))
        throw InputError(kPlot, fmt::format("'{}' is a directory; give a file path ending in .svg", path));
    const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec))
        throw InputError(kPlot, fmt::format("folder '{}' does not exist; create it or give another path", parent.string()));
    if (::access(parent.c_str(), W_OK) != 0)
        throw InputError(kPlot, fmt::format("folder '{}' is not writable; give another path", parent.string()));
    if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
        throw InputError(kPlot, fmt::format("'{}' exists and is not writable; give another path", path));
    return path;
}

void write_plot_if_asked(const Args& args, const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus,
                         const std::string& title) {
    PlotOptions opt;
    opt.title = title;
    write_plot_if_asked(args, records, gpus, opt);
}

void write_plot_if_asked(const Args& args, const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus,
                         const PlotOptions& options) {
    const std::string path = checked_plot_path(args);
    if (path.empty())
        return;
    const std::string svg = plot_svg(records, gpus, options);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr)
        throw InputError(kPlot, fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    const bool written = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
    if (std::fclose(f) != 0 || !written)
        throw InputError(kPlot, fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
}

}  // namespace bwacct::cli
