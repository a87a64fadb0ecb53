#include "bwacct/record.h"

namespace bwacct {

std::string_view time_source_name(TimeSource s) {
    switch (s) {
        case TimeSource::modelled:
            return "modelled";
        case TimeSource::given:
            return "given";
        case TimeSource::measured:
            return "measured";
        case TimeSource::simulated:
            return "simulated";
        case TimeSource::ingested:
            return "ingested";
    }
    return "?";
}

}  // namespace bwacct
