// The default GPU catalog: $BWACCT_CATALOG when set, else configs/gpus.json as compiled into the
// binary (shipped_configs.h). The compiled-in entries were read and validated by the catalog loader
// at build time, so start-up parses no JSON.
#include <cstdlib>

#include "bwacct/catalog.h"
#include "shipped_configs.h"

namespace bwacct {

Catalog Catalog::load_default() {
    if (const char* env = std::getenv("BWACCT_CATALOG"); env != nullptr && *env != '\0')
        return load(env, "BWACCT_CATALOG");
    static const Catalog compiled_in = from_entries(shipped::gpus());
    return compiled_in;
}

}  // namespace bwacct
