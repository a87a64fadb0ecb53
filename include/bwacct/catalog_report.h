// Renders the GPU catalog (`bwacct gpus`) and one entry with every source (`bwacct gpu ID`).
#pragma once
#include <cstdio>

#include "bwacct/catalog.h"
#include "bwacct/report.h"

namespace bwacct {

void print_catalog(const Catalog& catalog, Format format, std::FILE* out);
void print_gpu(const GpuSpec& gpu, Format format, std::FILE* out);

}  // namespace bwacct
