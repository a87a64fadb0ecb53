#include "app.h"

int main(int argc, char** argv) { return bwacct::cli::run_app(argc, argv); }
