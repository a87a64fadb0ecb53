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
// Memory, O(activities): the stream order (4 bytes an activity), prefix hashes of the name-id sequence
// (8 bytes), the launches' correlation ids, and per undecided candidate three 64-bit context keys with
// their evidence; never strings.
#include <algorithm>
#include <array>
#include <numeric>

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

    // Whether two linked activities would be costed alike: NCCL metadata on both or neither, the same
    // shaped ops up their chains.
    auto agree = [&](std::int64_t x, std::int64_t y) {
        const auto xi = static_cast<std::size_t>(x), yi = static_cast<std::size_t>(y);
        return t.activities[xi].collective.has_value() == t.activities[yi].collective.has_value() &&
               same_shaped_chain(t, links, links.op[xi], links.op[yi]);
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
        // agreed (linked), ambiguous (wider next time), or no linked twin with the candidate's metadata.
        std::size_t kept = 0;
        for (const std::uint32_t p : undecided) {
            const std::size_t a = order[p];
            for (const Side side : kSides) {
                const Evidence* e = find(context(p, side, k));
                if (!e || (e->twin < 0 && e->unknown < 0))
                    continue;
                if (e->ambiguous)
                    undecided[kept++] = p;
                else if (t.activities[static_cast<std::size_t>(e->twin)].collective.has_value() ==
                         t.activities[a].collective.has_value())
                    found.emplace_back(a, links.op[static_cast<std::size_t>(e->twin)]);
                break;
            }
        }
        undecided.resize(kept);
    }
    for (const auto& [a, op] : found) {
        links.op[a] = op;
        links.how[a] = LinkHow::inferred;
    }
    return found.size();
}

}  // namespace bwacct::kineto
