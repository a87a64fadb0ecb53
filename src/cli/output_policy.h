// What the process does with its standard output, decided once for every command (app.cpp):
// whether to colour it, and how a write that failed ends the run.
#pragma once
#include <string>

namespace bwacct::cli {

// Colour (ANSI bold) only when stdout is a terminal that can show it, as grep and ls do: NO_COLOR
// set to anything but "" turns it off (no-color.org), and so does TERM unset, empty or "dumb";
// never under an MPI launcher (ranks' output is merged by mpirun). The arguments are the values
// of the environment variables (nullptr: unset).
bool colour_wanted(bool stdout_is_tty, const char* no_color, const char* term, bool under_launcher);

// Called first: ignores SIGPIPE, so that a write to a closed pipe fails with EPIPE instead of
// killing the process half-way, and puts /dev/null on any of descriptors 0, 1, 2 that is closed, so
// that no file bwacct opens can take their place (output meant for stdout would land in it).
// Remembers whether stdout was closed.
void prepare_standard_streams();

// Called last, with the command's exit code and its name for the message ("bwacct gpus"): flushes
// stdout and checks it. A write that failed (now or before: a full disk, /dev/full, stdout closed
// when bwacct started) gives one line on stderr and exit 1 (the command's own code when that was
// already a failure); a reader that went away (EPIPE: `bwacct ... | head -1`) ends the process
// quietly by SIGPIPE, as `yes | head` ends, status 141 in a shell. `errno_hint` is the errno of a
// write failure seen earlier (0: none).
int finish_standard_output(int code, const std::string& who, int errno_hint);

// Whether a write to stdout has failed so far (the stream's error flag).
bool standard_output_failed();

}  // namespace bwacct::cli
