// GPU activities with no CPU launch record at all (queued before the profiler started: the first
// steps of a trace run kernels the host launched while nothing was recorded) linked to the op of the
// kernel in the same place of a repeated, linked kernel sequence (docs/ingest.md, "Linking").
//
// Context: the names of the activity and of its K neighbours before and after it on its own stream, in
// start order. A training or serving step launches the same kernel sequence each time. K starts at
// kInferContext (8: 17 names span a layer or two, enough to place most kernels) and doubles up to
// kInferContextMax while the linked activities with the context disagree: one network's layers run the
// same kernel names at other shapes (ResNet's stages: the same MIOpen and elementwise kernels at 64, 128,
// 256, 512 channels), and a wider context tells them apart; the linked activities with a wider context
// are a subset of those with the narrower one, so every acceptance still rests on all of them agreeing.
// Looked up among the linked activities of the same device on any stream (the stream is a scheduling
// detail: the same module runs on the stream PyTorch's pool hands out; the context names the work),
// never another device (ranks of a pipeline or of uneven shards run the same kernels at other shapes).
// Accepted only when every linked activity with that context is linked to an op whose shaped ops (the op
// and its ancestors that have Input Dims: name, Input Dims, Input type, Concrete Inputs) are the same,
// and carries NCCL metadata exactly when the activity does: the summary costs an activity from its own
// metadata, else from exactly those ops (the first costable one up its chain), so the inferred activity
// lands in the group of its linked twins. At a stream's edge (fewer than K neighbours on one side), or
// when no linked activity has the whole context (the last kernels before the first linked step), the
// context after it, else the one before. No name-only match: one linked shape of a kernel says nothing of
// the shape of an unlinked call of it.
// A collective kernel without metadata of its own (NCCL's comes on the kernel event from the launch) whose
// twins carry it takes theirs when every twin carries the same (Links::collective_twin); those the
// name context cannot place (a communicator's stream runs one kernel name for every collective) are
// placed by their stream's period (place_collectives), or given a reason (Links::collective_why).
// Memory, O(activities): the stream order (4 bytes an activity), prefix hashes of the name-id sequence
// (8 bytes), the launches' correlation ids, and per undecided candidate three 64-bit context keys with
// their evidence; never strings.
#include <algorithm>
#include <array>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {
namespace {

// Polynomial hashes modulo the Mersenne prime 2^61 − 1 (a window's hash in O(1) from prefix hashes).
constexpr std::uint64_t kMod = (1ull << 61) - 1, kBase = 0x1F3D5B79A2C4E6F1ull % kMod;

std::uint64_t mulmod(std::uint64_t a, std::uint64_t b) {
    __extension__ using u128 = unsigned __int128;
    const u128 p = static_cast<u128>(a) * b;
    std::uint64_t r = static_cast<std::uint64_t>(p & kMod) + static_cast<std::uint64_t>(p >> 61);
    return r >= kMod ? r - kMod : r;
}

std::uint64_t mix(std::uint64_t h) {  // splitmix64's finaliser
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

template <class T, class Extra>
bool same_list(const SharedList<T, Extra>& x, const SharedList<T, Extra>& y) {
    return x.same(y) || (x.items() == y.items() && x.extra() == y.extra());
}

// The next op at or above `op` that has shapes, or -1.
std::int64_t shaped(const Trace& t, const Links& links, std::int64_t op) {
    while (op >= 0 && !op_has_shapes(t.ops[static_cast<std::size_t>(op)]))
        op = links.parent[static_cast<std::size_t>(op)];
    return op;
}

// Whether two ops carry the same shaped ops up their chains (so the summary gives them one group).
bool same_shaped_chain(const Trace& t, const Links& links, std::int64_t x, std::int64_t y) {
    for (x = shaped(t, links, x), y = shaped(t, links, y); x >= 0 && y >= 0;) {
        if (x == y)
            return true;  // the same op from here up
        const CpuOp &a = t.ops[static_cast<std::size_t>(x)], &b = t.ops[static_cast<std::size_t>(y)];
        if (a.name != b.name || !same_list(a.dims, b.dims) || !same_list(a.types, b.types) || !same_list(a.concrete, b.concrete))
            return false;
        x = shaped(t, links, links.parent[static_cast<std::size_t>(x)]);
        y = shaped(t, links, links.parent[static_cast<std::size_t>(y)]);
    }
    return x < 0 && y < 0;
}

std::uint64_t powmod(std::uint64_t e) {  // kBase^e
    std::uint64_t r = 1, b = kBase;
    for (; e > 0; e >>= 1, b = mulmod(b, b))
        if (e & 1)
            r = mulmod(r, b);
    return r;
}

// The hash of the `count` tokens from position `first` on, from their prefix hashes.
std::uint64_t span_hash(const std::vector<std::uint64_t>& prefix, std::size_t first, std::size_t count) {
    return (prefix[first + count] + kMod - mulmod(prefix[first], powmod(count))) % kMod;
}

// Whether the tokens at positions [first, end) repeat with period p (each equals the one p after it).
bool periodic(const std::vector<std::uint64_t>& prefix, std::size_t first, std::size_t end, std::size_t p) {
    return end - first <= p || span_hash(prefix, first, end - first - p) == span_hash(prefix, first + p, end - first - p);
}

std::uint64_t text_hash(std::string_view s) {
    std::uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
    for (const char c : s)
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
    return h;
}

// What two collectives' metadata disagree on, in words ("message size", "dtype", ...).
std::string disagreement(const CollectiveArgs& x, const CollectiveArgs& y) {
    std::string r;
    auto add = [&](bool differ, std::string_view what) {
        if (differ)
            r += (r.empty() ? "" : ", ") + std::string(what);
    };
    add(x.name != y.name, "collective");
    add(x.in_nelems != y.in_nelems || x.out_nelems != y.out_nelems, "message size");
    add(x.dtype != y.dtype, "dtype");
    add(x.group_size != y.group_size, "group size");
    return r;
}

// Collective kernels with no metadata of their own that the name context did not place (a
// communicator's stream runs one kernel name, ncclDevKernel_Generic, for every collective: names alone
// cannot tell a step's broadcast from its all-reduce buckets). Per (device, stream) run [lo, hi) with
// such kernels: its tail [f, hi), after the last activity without a launch record, holds only launched
// activities; a token per activity (its name, and its collective metadata when it has some). The period
// P: the smallest with two whole repetitions in the tail (hi − f ≥ 2P) over which the tokens repeat
// with period P, and over which the names of the whole run do too (the kernels queued before the
// profiler follow the same sequence). Its twins: the tail's activities at positions p + m·P. Taken when
// every twin carries metadata and all of it is the same (the tokens' hashes say so; checked exactly);
// else, with the names' own period (the smallest with two repetitions in the tail) standing in, the
// reason says what the twins disagree on, or that no repeated sequence places it.
void place_collectives(const Trace& t, Links& links, const std::vector<std::uint32_t>& order,
                       const std::vector<std::uint64_t>& prefix, const std::vector<std::uint32_t>& candidates,
                       std::vector<std::pair<std::size_t, std::int64_t>>& found) {
    const std::size_t n = order.size();
    std::vector<std::size_t> placed;  // activities the name context placed
    placed.reserve(found.size());
    for (const auto& f : found)
        placed.push_back(f.first);
    std::sort(placed.begin(), placed.end());
    auto same_run = [&](std::size_t x, std::size_t y) {
        const GpuActivity &a = t.activities[order[x]], &b = t.activities[order[y]];
        return a.device == b.device && a.stream == b.stream;
    };
    std::vector<std::uint64_t> tokens;  // prefix hashes of the tokens of the run at hand, from its start
    const std::string kNoMeta = "no collective metadata (queued before the profiler started)";
    for (std::size_t c = 0; c < candidates.size();) {
        // The run of candidates[c]: [lo, hi); its candidates: candidates[c_begin, c) (after the loop below).
        std::size_t lo = candidates[c], hi = lo + 1;
        while (lo > 0 && same_run(lo - 1, lo))
            --lo;
        while (hi < n && same_run(lo, hi))
            ++hi;
        const std::size_t c_begin = c;
        while (c < candidates.size() && candidates[c] < hi)
            ++c;
        const std::size_t f = candidates[c - 1] + 1;
        // The kernel names that carry metadata in the tail: a candidate of one of them is a collective.
        std::vector<std::uint32_t> collective_names;
        for (std::size_t q = f; q < hi; ++q)
            if (t.activities[order[q]].collective)
                collective_names.push_back(t.activities[order[q]].name);
        std::sort(collective_names.begin(), collective_names.end());
        std::vector<std::size_t> todo;  // positions of the run's collective candidates left
        for (std::size_t i = c_begin; i < c; ++i) {
            const std::size_t p = candidates[i];
            const GpuActivity& g = t.activities[order[p]];
            if (!g.collective && std::binary_search(collective_names.begin(), collective_names.end(), g.name) &&
                !std::binary_search(placed.begin(), placed.end(), order[p]))
                todo.push_back(p);
        }
        if (todo.empty())
            continue;
        tokens.assign(hi - lo + 1, 0);
        for (std::size_t p = lo; p < hi; ++p) {
            const GpuActivity& g = t.activities[order[p]];
            std::uint64_t h = g.name + 1;
            if (g.collective) {
                const CollectiveArgs& m = *g.collective;
                h = mix(h ^ mix(text_hash(m.name) ^
                                mix(text_hash(m.dtype) ^ mix(m.in_nelems ^ mix(m.out_nelems ^ mix(m.group_size))))));
            }
            tokens[p - lo + 1] = (mulmod(tokens[p - lo], kBase) + h % kMod) % kMod;
        }
        const std::size_t tail = hi - f;
        std::size_t period = 0, names_period = 0;
        for (std::size_t p = 1; 2 * p <= tail && period == 0; ++p)
            if (periodic(prefix, lo, hi, p)) {
                if (names_period == 0)
                    names_period = p;
                if (periodic(tokens, f - lo, hi - lo, p))
                    period = p;
            }
        const std::size_t use = period != 0 ? period : names_period;
        for (const std::size_t p : todo) {
            const std::size_t a = order[p];
            if (use == 0) {
                links.collective_why.emplace_back(
                    a, kNoMeta + "; no repeated kernel sequence on its stream places it among linked twins");
                continue;
            }
            const std::size_t first = p + (f - p + use - 1) / use * use;  // its first twin in the tail (hi − f ≥ 2·use)
            std::string differ;
            for (std::size_t q = first; q < hi && differ.empty(); q += use) {
                const GpuActivity& twin = t.activities[order[q]];
                if (twin.name != t.activities[a].name)  // the names' hashes said they repeat: checked
                    differ = "kernel name";
                else if (!twin.collective)
                    differ = "whether they carry collective metadata";
                else if (q != first)
                    differ = disagreement(*t.activities[order[first]].collective, *twin.collective);
            }
            if (!differ.empty()) {
                links.collective_why.emplace_back(
                    a, fmt::format("{}; its twins in the repeated kernel sequence disagree on {}", kNoMeta, differ));
                continue;
            }
            found.emplace_back(a, links.op[order[first]]);
            links.collective_twin.emplace_back(a, order[first]);
        }
    }
}

enum Side : std::uint64_t { both = 1, after = 2, before = 3 };
constexpr std::array<Side, 3> kSides{both, after, before};

struct Evidence {
    std::uint64_t key = 0;
    std::int64_t twin = -1;     // the first linked activity with this context; -1: none
    std::int64_t unknown = -1;  // the first linked activity that may have it (cut by its stream's edge)
    bool ambiguous = false;     // linked activities with it disagree (shaped ops, NCCL metadata)
    bool unknown_ambiguous = false;
};

}  // namespace

const CollectiveArgs* collective_of(const Trace& t, const Links& links, std::size_t a) {
    if (const auto& own = t.activities[a].collective)
        return &*own;
    const auto it =
        std::lower_bound(links.collective_twin.begin(), links.collective_twin.end(), std::make_pair(a, std::size_t{0}));
    return it != links.collective_twin.end() && it->first == a ? &*t.activities[it->second].collective : nullptr;
}

std::string_view collective_why(const Links& links, std::size_t a) {
    const auto it = std::lower_bound(links.collective_why.begin(), links.collective_why.end(), a,
                                     [](const auto& x, std::size_t v) { return x.first < v; });
    return it != links.collective_why.end() && it->first == a ? std::string_view(it->second) : std::string_view();
}

std::uint64_t infer_unlinked(const Trace& t, Links& links) {
    const std::size_t n = t.activities.size();
    std::vector<std::int64_t> launched;  // correlation ids with a CPU launch record
    launched.reserve(static_cast<std::size_t>(
        std::count_if(t.launches.begin(), t.launches.end(), [](const Launch& l) { return l.correlation >= 0; })));
    for (const Launch& l : t.launches)
        if (l.correlation >= 0)
            launched.push_back(l.correlation);
    std::sort(launched.begin(), launched.end());
    launched.erase(std::unique(launched.begin(), launched.end()), launched.end());
    auto candidate = [&](std::size_t a) {
        const std::int64_t c = t.activities[a].correlation;
        return links.op[a] < 0 && (c < 0 || !std::binary_search(launched.begin(), launched.end(), c));
    };
    std::size_t linked = 0;
    for (std::size_t a = 0; a < n; ++a)
        linked += links.op[a] >= 0 ? 1 : 0;
    if (linked == 0)
        return 0;

    // Activity indices by device, stream, start (an 8 GiB trace holds far fewer than 2^32 activities);
    // prefix[p]: the hash of the names before position p.
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        const GpuActivity &a = t.activities[x], &b = t.activities[y];
        if (a.device != b.device)
            return a.device < b.device;
        if (a.stream != b.stream)
            return a.stream < b.stream;
        return a.ts != b.ts ? a.ts < b.ts : x < y;
    });
    std::vector<std::uint32_t> undecided;  // positions (in `order`) of the candidates not yet decided
    for (std::size_t p = 0; p < n; ++p)
        if (candidate(order[p]))
            undecided.push_back(static_cast<std::uint32_t>(p));
    if (undecided.empty())
        return 0;
    const std::vector<std::uint32_t> candidates = undecided;  // every candidate's position, ascending
    std::vector<std::uint64_t> prefix(n + 1, 0);
    for (std::size_t p = 0; p < n; ++p)
        prefix[p + 1] = (mulmod(prefix[p], kBase) + t.activities[order[p]].name + 1) % kMod;
    std::array<std::uint64_t, 2 * kInferContextMax + 2> power{};
    power[0] = 1;
    for (std::size_t i = 1; i < power.size(); ++i)
        power[i] = mulmod(power[i - 1], kBase);
    // Whether two positions lie on the same (device, stream) run (runs are contiguous in `order`).
    auto same_run = [&](std::size_t x, std::size_t y) {
        const GpuActivity &a = t.activities[order[x]], &b = t.activities[order[y]];
        return a.device == b.device && a.stream == b.stream;
    };
    // The hash of the names at positions first..last.
    auto window = [&](std::size_t first, std::size_t last) {
        return (prefix[last + 1] + kMod - mulmod(prefix[first], power[last + 1 - first])) % kMod;
    };
    // The key of position p's context on `side` with K = k, or 0 when it runs past its run's edge.
    auto context = [&](std::size_t p, Side side, std::size_t k) -> std::uint64_t {
        const std::size_t first = side == after ? p : p - std::min(p, k), last = side == before ? p : p + k;
        if ((side != after && (p - first < k || !same_run(first, p))) || (side != before && (last >= n || !same_run(p, last))))
            return 0;
        const std::uint64_t h = window(first, last);
        return mix(h ^ mix(static_cast<std::uint64_t>(t.activities[order[p]].device) * 4 + side) ^ (k << 56)) | 1;
    };

    // Whether two linked activities would be costed alike: the same NCCL metadata or none on both, the
    // same shaped ops up their chains.
    auto agree = [&](std::int64_t x, std::int64_t y) {
        const auto &cx = t.activities[static_cast<std::size_t>(x)].collective,
                   &cy = t.activities[static_cast<std::size_t>(y)].collective;
        return cx.has_value() == cy.has_value() && (!cx || *cx == *cy) &&
               same_shaped_chain(t, links, links.op[static_cast<std::size_t>(x)], links.op[static_cast<std::size_t>(y)]);
    };
    std::vector<std::pair<std::size_t, std::int64_t>> found;  // (activity, op), applied at the end
    std::vector<Evidence> seen;                               // by key: the undecided candidates' contexts at K = k
    struct Narrow {
        std::uint64_t key_j, key;  // a candidate's context at a narrower K, and at k
        std::uint32_t p;           // its position
    };
    std::vector<Narrow> narrow;  // by key_j, key
    for (std::size_t k = kInferContext; k <= kInferContextMax && !undecided.empty(); k *= 2) {
        seen.clear();
        narrow.clear();
        for (const std::uint32_t p : undecided)
            for (const Side side : kSides)
                if (const std::uint64_t h = context(p, side, k)) {
                    seen.push_back({h});
                    for (std::size_t j = kInferContext; j < k; j *= 2)
                        if (const std::uint64_t hj = context(p, side, j))
                            narrow.push_back({hj, h, p});
                }
        std::sort(seen.begin(), seen.end(), [](const Evidence& x, const Evidence& y) { return x.key < y.key; });
        seen.erase(std::unique(seen.begin(), seen.end(), [](const Evidence& x, const Evidence& y) { return x.key == y.key; }),
                   seen.end());
        std::sort(narrow.begin(), narrow.end(),
                  [](const Narrow& x, const Narrow& y) { return x.key_j != y.key_j ? x.key_j < y.key_j : x.key < y.key; });
        narrow.erase(std::unique(narrow.begin(), narrow.end(),
                                 [](const Narrow& x, const Narrow& y) { return x.key_j == y.key_j && x.key == y.key; }),
                     narrow.end());
        auto find = [&](std::uint64_t h) -> Evidence* {
            const auto it =
                std::lower_bound(seen.begin(), seen.end(), h, [](const Evidence& e, std::uint64_t v) { return e.key < v; });
            return h != 0 && it != seen.end() && it->key == h ? &*it : nullptr;
        };
        auto note = [&](std::int64_t& first, bool& ambiguous, std::size_t a) {
            if (first < 0)
                first = static_cast<std::int64_t>(a);
            else if (!ambiguous && !agree(first, static_cast<std::int64_t>(a)))
                ambiguous = true;
        };
        // The linked activities with a candidate's context. One whose context at k runs past its stream's
        // edge, but whose names up to that edge are the candidate's, may be the same place: it is not a
        // twin, but one that disagrees keeps the candidate ambiguous (a narrower context found two
        // answers; running out of neighbours is no evidence for either).
        for (std::size_t p = 0, lo = 0, hi = 0; p < n; ++p) {
            if (p == hi)  // a new (device, stream) run: [lo, hi)
                for (lo = p, hi = p + 1; hi < n && same_run(lo, hi);)
                    ++hi;
            const std::size_t a = order[p];
            if (links.op[a] < 0)
                continue;
            for (const Side side : kSides) {
                if (const std::uint64_t h = context(p, side, k)) {  // its whole context: a twin or none
                    if (Evidence* e = find(h))
                        note(e->twin, e->ambiguous, a);
                    continue;
                }
                std::uint64_t hj = 0;
                for (std::size_t j = k / 2; j >= kInferContext && hj == 0; j /= 2)
                    hj = context(p, side, j);
                if (hj == 0)
                    continue;
                // The names it has on this side within k, up to its run's edges: the candidate's there?
                const std::size_t back = side == after ? 0 : std::min(k, p - lo),
                                  ahead = side == before ? 0 : std::min(k, hi - 1 - p);
                const std::uint64_t seen_here = window(p - back, p + ahead);
                for (auto it = std::lower_bound(narrow.begin(), narrow.end(), hj,
                                                [](const Narrow&x, std::uint64_t v) { return x.key_j < v; });
                     it != narrow.end() && it->key_j == hj; ++it)
                    if (window(it->p - back, it->p + ahead) == seen_here)
                        if (Evidence* e = find(it->key))
                            note(e->unknown, e->unknown_ambiguous, a);
            }
        }
        for (Evidence& e : seen)
            if (e.unknown >= 0 && (e.unknown_ambiguous || e.twin < 0 || !agree(e.twin, e.unknown)))
                e.ambiguous = true;
        // Each candidate: the whole context, else after, else before; the first one seen linked decides:
        // agreed (linked; a collective without metadata takes its twin's), ambiguous (wider next time), or
        // no linked twin with the candidate's metadata.
        std::size_t kept = 0;
        for (const std::uint32_t p : undecided) {
            const std::size_t a = order[p];
            for (const Side side : kSides) {
                const Evidence* e = find(context(p, side, k));
                if (!e || (e->twin < 0 && e->unknown < 0))
                    continue;
                if (e->ambiguous) {
                    undecided[kept++] = p;
                    break;
                }
                const auto twin = static_cast<std::size_t>(e->twin);
                const GpuActivity &self = t.activities[a], &other = t.activities[twin];
                if (other.collective.has_value() == self.collective.has_value()) {
                    found.emplace_back(a, links.op[twin]);
                } else if (!self.collective && other.device == self.device && other.stream == self.stream) {
                    // A collective kernel without metadata takes its twins' (agree() made it the same for
                    // all) when the twin runs on its stream (a communicator's; another's group may
                    // differ); else place_collectives tries.
                    found.emplace_back(a, links.op[twin]);
                    links.collective_twin.emplace_back(a, twin);
                }
                break;
            }
        }
        undecided.resize(kept);
    }
    place_collectives(t, links, order, prefix, candidates, found);
    for (const auto& [a, op] : found) {
        links.op[a] = op;
        links.how[a] = LinkHow::inferred;
    }
    std::sort(links.collective_twin.begin(), links.collective_twin.end());
    std::sort(links.collective_why.begin(), links.collective_why.end());
    return found.size();
}

}  // namespace bwacct::kineto
