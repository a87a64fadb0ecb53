#include "plot_option.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "backend.h"
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
    auto cannot = [&](const char* what, int err) {
        return InputError(kPlot,
                          fmt::format("cannot {} '{}': {}; give a writable path ending in .svg", what, path, std::strerror(err)));
    };
    // The file is opened here, before any output, so a path that cannot take the chart fails now
    // (exit 2, nothing on stdout) and not after the report has been printed.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {  // exists (through symbolic links)
        if (!S_ISREG(st.st_mode))
            throw InputError(kPlot, fmt::format("'{}' is not a regular file (a device, pipe or socket); give the path of a "
                                                "file ending in .svg",
                                                path));
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);  // no O_TRUNC: the old chart stays until the new one
        if (fd < 0)
            throw cannot("write", errno);
        ::close(fd);
        return path;
    }
    if (errno != ENOENT)
        throw cannot("use", errno);
    const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec))
        throw InputError(kPlot, fmt::format("folder '{}' does not exist; create it or give another path", parent.string()));
    // Created and removed again: proves the folder takes a new file (root may pass access(W_OK) on
    // /proc, a read-only or full file system may refuse; a dangling symbolic link is refused too).
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        throw cannot("create", errno);
    ::close(fd);
    ::unlink(path.c_str());
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
    // Checked before any output (checked_plot_path), so what fails now is the machine (a full disk):
    // a runtime failure, exit 1.
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr)
        throw measure::MeasureError(fmt::format("--plot: cannot write '{}': {}", path, std::strerror(errno)));
    const bool written = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
    const int write_errno = errno;
    if (std::fclose(f) != 0 || !written)
        throw measure::MeasureError(
            fmt::format("--plot: cannot write '{}': {}", path, std::strerror(written ? errno : write_errno)));
}

}  // namespace bwacct::cli
