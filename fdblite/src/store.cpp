// store.cpp: the versioned store as a skiplist of keys, each holding a chain
// of version records, newest first.
//
// Invariants (checked by the differential test in tests/store_test.cpp):
//  1. Level 0 is a sorted, duplicate-free, doubly linked list: head_ <->
//     first <-> ... <-> last, with head_->prev == last (head_ when empty), so
//     SeekToLast and Prev are O(1). Higher levels are sorted sublists.
//  2. A node's version chain is non-empty and strictly decreasing in version.
//  3. The GC queue holds (node, record) entries in non-decreasing record
//     version order (writes are monotonic). A record carries kQueued while an
//     entry refers to it, and is never freed before that entry is popped:
//     records older than it were written earlier, so their entries (if any)
//     sit ahead of it in the queue.
//  4. Every record that may need pruning later has an entry: a record with an
//     older record below it, or a tombstone. A node's first value, alone in
//     its chain, needs none, which keeps bulk loads free of queue memory.
//     In an overlay (StoreKind::kOverlay) every record above the pinned
//     version has an entry: Forget drops a key once its newest is applied.
//  5. A record replaced by a same-version write while queued is "detached":
//     out of every chain, flagged kDetached, freed when its entry pops.
//  6. The index (NodeIndex) holds exactly the nodes on level 0, each once,
//     in a linear-probing table of node pointers kept under kMaxLoad, so
//     every probe sequence ends at an empty slot. Point operations on an
//     existing key (Get, and Set/Clear of a key already present) go through
//     it in O(1) expected node visits instead of O(log n) cache misses down
//     the skiplist; ordered operations stay on the skiplist.
#include "store.h"

#include "key_order.h"

#include <malloc.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>

namespace fdblite {
namespace {

constexpr int kMaxHeight = 20;  // p = 1/4: fine beyond 4^20 keys.

constexpr uint8_t kTombstone = 1;  // a clear, not a value
constexpr uint8_t kQueued = 2;     // a GC queue entry refers to this record
constexpr uint8_t kDetached = 4;   // replaced while queued; freed when popped

// VersionRecord is one version of one key: a single allocation of the header
// followed by the value bytes. The value starts in value_head, a named member
// where the header would otherwise end in padding (which the compiler may
// clobber), and runs on past the struct into the rest of the allocation.
struct VersionRecord {
  Version version;
  VersionRecord* older;
  uint32_t value_len;
  uint8_t flags;
  char value_head[3];

  bool tombstone() const { return (flags & kTombstone) != 0; }
  char* value_data();
  const char* value_data() const;
  std::string_view value() const { return {value_data(), value_len}; }
};
constexpr size_t kValueOffset = offsetof(VersionRecord, value_head);
static_assert(sizeof(VersionRecord) == kValueOffset + 3, "no tail padding");

char* VersionRecord::value_data() {
  return reinterpret_cast<char*>(this) + kValueOffset;
}
const char* VersionRecord::value_data() const {
  return reinterpret_cast<const char*>(this) + kValueOffset;
}

// Node is one key: a single allocation of the header, `height` forward
// pointers, then the key bytes.
struct Node {
  VersionRecord* newest;
  Node* prev;  // level 0 back pointer (head sentinel for the first node)
  uint32_t key_len;
  uint8_t height;

  Node** next() {
    return std::launder(
        reinterpret_cast<Node**>(reinterpret_cast<char*>(this) + sizeof(Node)));
  }
  Node* const* next() const {
    return std::launder(reinterpret_cast<Node* const*>(
        reinterpret_cast<const char*>(this) + sizeof(Node)));
  }
  std::string_view key() const {
    return {reinterpret_cast<const char*>(this) + sizeof(Node) +
                sizeof(Node*) * height,
            key_len};
  }
};
static_assert(sizeof(Node) % alignof(Node*) == 0, "next[] must be aligned");


// Allocation goes through the global operator new so sanitizers see every
// byte. *bytes counts what malloc holds for the store: each block's usable
// size plus its chunk header (one word on glibc).
constexpr size_t kMallocHeader = sizeof(void*);

size_t HeldBytes(void* mem) { return malloc_usable_size(mem) + kMallocHeader; }

VersionRecord* NewRecord(size_t* held, Version v, std::string_view value, bool tombstone,
                         VersionRecord* older) {
  if (value.size() > UINT32_MAX) throw std::length_error("fdblite: value too long");
  size_t bytes = std::max(sizeof(VersionRecord), kValueOffset + value.size());
  void* mem = ::operator new(bytes);
  *held += HeldBytes(mem);
  auto* r = new (mem) VersionRecord{v, older, static_cast<uint32_t>(value.size()),
                                    static_cast<uint8_t>(tombstone ? kTombstone : 0),
                                    {}};
  if (!value.empty()) std::memcpy(r->value_data(), value.data(), value.size());
  return r;
}

void FreeRecord(size_t* held, VersionRecord* r) {
  *held -= HeldBytes(r);
  r->~VersionRecord();
  ::operator delete(r);
}

Node* NewNode(size_t* held, std::string_view key, int height) {
  if (key.size() > UINT32_MAX) throw std::length_error("fdblite: key too long");
  size_t bytes = sizeof(Node) + sizeof(Node*) * height + key.size();
  void* mem = ::operator new(bytes);
  *held += HeldBytes(mem);
  auto* n = new (mem) Node{nullptr, nullptr, static_cast<uint32_t>(key.size()),
                           static_cast<uint8_t>(height)};
  char* links = static_cast<char*>(mem) + sizeof(Node);
  for (int i = 0; i < height; ++i) {
    new (links + sizeof(Node*) * i) Node*(nullptr);
  }
  if (!key.empty()) {
    std::memcpy(links + sizeof(Node*) * height, key.data(), key.size());
  }
  return n;
}

void FreeNode(size_t* held, Node* n) {
  *held -= HeldBytes(n);
  n->~Node();
  ::operator delete(n);
}

// AtOrBelow returns n's newest record <= v (a value or a tombstone), or null.
const VersionRecord* AtOrBelow(const Node* n, Version v) {
  const VersionRecord* r = n->newest;
  while (r != nullptr && r->version > v) r = r->older;
  return r;
}

// Visible returns the record of n a read at v sees, or null when that is a
// tombstone or n has no version <= v.
const VersionRecord* Visible(const Node* n, Version v) {
  const VersionRecord* r = AtOrBelow(n, v);
  if (r == nullptr || r->tombstone()) return nullptr;
  return r;
}

// In an overlay, records at or below this version are pinned (store.h).
constexpr Version kPinnedVersion = 1;

// HashKey is a fast non-cryptographic hash of the key bytes, in the style of
// wyhash: 64-bit words folded through 64x64->128-bit multiplies. Inputs of up
// to 16 bytes (the common key size) take two overlapping loads and two
// multiplies; longer ones add one multiply per 16 bytes. The seed is fixed,
// so probe patterns are reproducible (the store is in-process: keys come from
// the application itself, not from an adversary).
constexpr uint64_t kHashSeed = 0x8f3c6d0b5a1e27c9ULL;
constexpr uint64_t kHashK1 = 0xd6e8feb86659fd93ULL;
constexpr uint64_t kHashK2 = 0x9fb21c651e98df25ULL;

inline uint64_t Fold(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t HashKey(std::string_view key) {
  const char* p = key.data();
  size_t n = key.size();
  uint64_t seed = kHashSeed;
  uint64_t a = 0, b = 0;
  if (n > 16) {
    for (; n > 16; n -= 16, p += 16) {
      seed = Fold(Load64(p) ^ kHashK1, Load64(p + 8) ^ seed);
    }
    // The last 16 bytes, overlapping what the loop hashed when n < 16.
    a = Load64(p + n - 16);
    b = Load64(p + n - 8);
  } else if (n >= 8) {
    a = Load64(p);
    b = Load64(p + n - 8);
  } else if (n >= 4) {
    a = Load32(p);
    b = Load32(p + n - 4);
  } else if (n > 0) {
    a = (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
        (uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) |
        static_cast<unsigned char>(p[n - 1]);
  }
  return Fold(kHashK2 ^ key.size(), Fold(a ^ kHashK1, b ^ seed));
}

// NodeIndex maps a key to its node: an open-addressing table with linear
// probing, indexed by the hash's top bits. A slot is one word: the node
// pointer, with a 4-bit tag from the hash's low bits in the pointer's low
// bits, which node alignment leaves zero. The tag costs no memory and spares
// the probe most visits to other keys' nodes, each a cache miss: measured at
// 100k keys (77% full), a hit visited 2.6 nodes and a miss 8.5 without it.
// Erase shifts later entries back instead of leaving tombstones, so lookups
// never slow down under churn.
//
// Memory: 8 bytes a slot, under a 4/5 load bound. The capacity is any size
// (a slot's home is the high word of hash * capacity, not a power-of-two
// mask), so growth can be 1.5x: at 1M keys the table holds about 1.3M slots,
// 10-11 bytes a key, where doubling would have reached 2^21 (16.8). Growth
// re-inserts every node (amortized O(1) per insert); while it runs, the old
// and new tables coexist. Prune shrinks the table once it is mostly empty.
//
// Thread safety: Find is const and reads only the table and nodes, so
// concurrent readers are fine; every other method needs exclusive access.
class NodeIndex {
 public:
  NodeIndex() = default;
  NodeIndex(const NodeIndex&) = delete;
  NodeIndex& operator=(const NodeIndex&) = delete;

  size_t size() const { return size_; }
  size_t capacity() const { return slots_ ? cap_ : 0; }

  // Find returns the node holding key (whose HashKey is hash), or null.
  Node* Find(std::string_view key, uint64_t hash) const {
    if (size_ == 0) return nullptr;
    const uintptr_t tag = Tag(hash);
    for (size_t i = Home(hash);; i = Next(i)) {
      const uintptr_t slot = slots_[i];
      if (slot == 0) return nullptr;
      if ((slot & kTagMask) != tag) continue;
      Node* n = NodeOf(slot);
      CountVisit();
      if (n->key_len == key.size() &&
          std::memcmp(n->key().data(), key.data(), key.size()) == 0) {
        return n;
      }
    }
  }

  // ReserveOne makes room for one Insert, growing the table if needed, so a
  // write can allocate everything it needs before it changes anything. On
  // failure (bad_alloc) the index is unchanged.
  void ReserveOne() {
    if ((size_ + 1) * kMaxLoadDen > capacity() * kMaxLoadNum) {
      Resize(slots_ ? capacity() + capacity() / 2 : kMinCapacity);
    }
  }

  // Insert adds n, whose key's HashKey is hash. REQUIRES: ReserveOne since
  // the last Insert; n's key is not in the index.
  void Insert(Node* n, uint64_t hash) noexcept {
    assert((size_ + 1) * kMaxLoadDen <= capacity() * kMaxLoadNum);
    Place(slots_.get(), cap_, n, hash);
    ++size_;
  }

  // Erase removes n, which the index holds.
  void Erase(const Node* n) noexcept {
    const uint64_t hash = HashKey(n->key());
    const uintptr_t want = reinterpret_cast<uintptr_t>(n) | Tag(hash);
    size_t hole = Home(hash);
    while (slots_[hole] != want) {
      assert(slots_[hole] != 0);
      hole = Next(hole);
    }
    // Backward shift: move into the hole each later entry of the run whose
    // home is not in (hole, j], i.e. which the hole would cut off from it.
    for (size_t j = Next(hole); slots_[j] != 0; j = Next(j)) {
      const size_t home = Home(HashKey(NodeOf(slots_[j])->key()));
      const bool reachable = hole <= j ? (hole < home && home <= j)
                                       : (hole < home || home <= j);
      if (reachable) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = 0;
    --size_;
  }

  // MaybeShrink resizes the table to 2/5 full once it is under a tenth
  // full. A failed allocation keeps the current table: shrinking is only an
  // economy.
  void MaybeShrink() noexcept {
    size_t cap = capacity();
    if (cap <= kMinCapacity || size_ * 10 >= cap) return;
    cap = std::max(kMinCapacity, size_ * 5 / 2 + 1);
    try {
      Resize(cap);
    } catch (const std::bad_alloc&) {
    }
  }

 private:
  static constexpr size_t kMinCapacity = 16;
  static constexpr size_t kMaxLoadNum = 4;  // load <= 4/5
  static constexpr size_t kMaxLoadDen = 5;
  // Nodes come from ::operator new, aligned for any fundamental type.
  static constexpr uintptr_t kTagMask =
      std::min<uintptr_t>(alignof(std::max_align_t), 16) - 1;

  static uintptr_t Tag(uint64_t hash) { return static_cast<uintptr_t>(hash) & kTagMask; }
  static Node* NodeOf(uintptr_t slot) { return reinterpret_cast<Node*>(slot & ~kTagMask); }
  // Home maps a hash to [0, cap) by the high word of hash * cap (Lemire's
  // range reduction): uniform for any capacity, no division.
  static size_t HomeIn(uint64_t hash, size_t cap) {
    return static_cast<size_t>((static_cast<unsigned __int128>(hash) * cap) >> 64);
  }
  size_t Home(uint64_t hash) const { return HomeIn(hash, cap_); }
  size_t Next(size_t i) const { return i + 1 == cap_ ? 0 : i + 1; }

  // Place stores n in the first free slot from its home in a table with the
  // given geometry.
  static void Place(uintptr_t* slots, size_t cap, Node* n,
                    uint64_t hash) noexcept {
    const uintptr_t p = reinterpret_cast<uintptr_t>(n);
    assert((p & kTagMask) == 0);
    size_t i = HomeIn(hash, cap);
    while (slots[i] != 0) i = i + 1 == cap ? 0 : i + 1;
    slots[i] = p | Tag(hash);
  }

  // Resize moves every node into a fresh table of cap slots (>= kMinCapacity,
  // holding them under the load bound). Only the allocation can throw,
  // before anything changes.
  void Resize(size_t cap) {
    assert(cap >= kMinCapacity);
    assert(size_ * kMaxLoadDen <= cap * kMaxLoadNum);
    auto fresh = std::make_unique<uintptr_t[]>(cap);  // all empty
    const size_t old_cap = capacity();
    // Rehashing reads every node's key, each a cache miss: fetch ahead.
    constexpr size_t kAhead = 8;
    for (size_t i = 0; i < old_cap; ++i) {
      if (i + kAhead < old_cap && slots_[i + kAhead] != 0) {
        __builtin_prefetch(NodeOf(slots_[i + kAhead]));
      }
      if (slots_[i] == 0) continue;
      Node* n = NodeOf(slots_[i]);
      Place(fresh.get(), cap, n, HashKey(n->key()));
    }
    slots_ = std::move(fresh);
    cap_ = cap;
  }

  static void CountVisit();

  std::unique_ptr<uintptr_t[]> slots_;  // null, or cap_ of them
  size_t cap_ = 0;
  size_t size_ = 0;
};

// Tests read how many nodes Find visits (the cache misses a lookup costs,
// which must not grow with the store) through store_testing below: a count
// per thread, so concurrent readers share no state. initial-exec keeps it a
// single add in the shared library too.
__attribute__((tls_model("initial-exec"))) thread_local uint64_t index_visits = 0;
void NodeIndex::CountVisit() { ++index_visits; }

// GcQueue is a FIFO ring buffer of (node, record) entries: amortized
// allocation-free pushes, and it shrinks back after a burst.
class GcQueue {
 public:
  struct Entry {
    Node* node;
    VersionRecord* rec;
  };

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  size_t capacity() const { return buf_.capacity(); }
  const Entry& front() const { return buf_[head_]; }
  const Entry& at(size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }

  // ReserveOne makes room for one push_back, so a write can allocate
  // everything it needs before it changes anything.
  void ReserveOne() {
    if (count_ == buf_.size()) Resize(buf_.empty() ? 64 : buf_.size() * 2);
  }
  void push_back(Entry e) {
    ReserveOne();
    buf_[(head_ + count_) & (buf_.size() - 1)] = e;
    ++count_;
  }
  Entry pop_front() {
    Entry e = buf_[head_];
    head_ = (head_ + 1) & (buf_.size() - 1);
    --count_;
    return e;
  }
  // MaybeShrink halves the buffer while it is under a quarter full.
  void MaybeShrink() {
    size_t cap = buf_.size();
    while (cap > 64 && count_ < cap / 4) cap /= 2;
    if (cap != buf_.size()) Resize(cap);
  }

 private:
  void Resize(size_t cap) {
    std::vector<Entry> next(cap);
    for (size_t i = 0; i < count_; ++i) next[i] = at(i);
    buf_.swap(next);
    head_ = 0;
  }

  std::vector<Entry> buf_;  // size is zero or a power of two
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace

struct Store::Impl {
  explicit Impl(bool overlay)
      : overlay(overlay), head(NewNode(&held, {}, kMaxHeight)) {
    head->prev = head;
  }
  // MemoryBytes: nodes and records as malloc holds them, plus the index
  // table and the GC queue.
  size_t MemoryBytes() const;
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  int RandomHeight();
  // FindGreaterOrEqual returns the first node >= key (null if none), filling
  // prevs[i] (when not null) with the last node < key at each level.
  Node* FindGreaterOrEqual(std::string_view key, Node** prevs) const;
  // FindLessThan returns the last node < key, or head if none.
  Node* FindLessThan(std::string_view key) const;
  void Write(std::string_view key, std::string_view value, bool tombstone,
             Version v);
  void WriteVersion(Node* n, std::string_view value, bool tombstone, Version v);
  void MaybeQueue(Node* n, VersionRecord* r);
  void FreeOlder(VersionRecord* r);
  void Unlink(Node* n);
  void Prune(Version oldest);
  void Forget(Version applied, const std::function<void(std::string_view)>& dropped);
  // FreeNodeAndChain unlinks n and frees it with every record in its chain.
  // REQUIRES: no record of the chain is queued.
  void FreeNodeAndChain(Node* n);

  const bool overlay;  // StoreKind::kOverlay
  size_t held = 0;  // bytes malloc holds for nodes and records
  Node* const head;
  int height = 1;                   // levels in use
  uint64_t rng = 0x2545F4914F6CDD1DULL;  // deterministic per store
  Version last_write = INT64_MIN;   // greatest version written
  size_t nodes = 0;
  size_t records = 0;   // records in chains
  size_t detached = 0;  // records awaiting their queue entry
  GcQueue queue;
  NodeIndex index;  // invariant 6
};

Store::Impl::~Impl() {
  // Detached records live only in the queue; everything else hangs off the
  // list.
  for (size_t i = 0; i < queue.size(); ++i) {
    if (queue.at(i).rec->flags & kDetached) FreeRecord(&held, queue.at(i).rec);
  }
  Node* n = head->next()[0];
  while (n != nullptr) {
    Node* next = n->next()[0];
    VersionRecord* r = n->newest;
    while (r != nullptr) {
      VersionRecord* older = r->older;
      FreeRecord(&held, r);
      r = older;
    }
    FreeNode(&held, n);
    n = next;
  }
  FreeNode(&held, head);
}

int Store::Impl::RandomHeight() {
  // xorshift64*: cheap, deterministic, good enough for level choice.
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  uint64_t r = rng * 0x2545F4914F6CDD1DULL;
  int h = 1;
  r >>= 8;  // the low bits of xorshift64* are its weakest
  while (h < kMaxHeight && (r & 3) == 0) {
    ++h;
    r >>= 2;
  }
  return h;
}

Node* Store::Impl::FindGreaterOrEqual(std::string_view key, Node** prevs) const {
  Node* x = head;
  Node* known_ge = nullptr;  // a node already found >= key: skip comparing it
  int level = height - 1;
  while (true) {
    Node* next = x->next()[level];
    // The search is a chain of cache misses; start fetching the candidate one
    // level down too, so a descent finds it (often) already on its way.
    if (level > 0) __builtin_prefetch(x->next()[level - 1]);
    if (next != nullptr && next != known_ge && KeyLess(next->key(), key)) {
      x = next;
    } else {
      known_ge = next;
      if (prevs != nullptr) prevs[level] = x;
      if (level == 0) return next;
      --level;
    }
  }
}

Node* Store::Impl::FindLessThan(std::string_view key) const {
  Node* x = head;
  for (int level = height - 1; level >= 0; --level) {
    Node* next = x->next()[level];
    while (next != nullptr && KeyLess(next->key(), key)) {
      x = next;
      next = x->next()[level];
    }
  }
  return x;
}

void Store::Impl::MaybeQueue(Node* n, VersionRecord* r) {
  if ((r->flags & kQueued) != 0) return;
  if (overlay) {
    // Every record is forgotten once applied, except pinned ones.
    if (r->version <= kPinnedVersion) return;
  } else if (r->older == nullptr && !r->tombstone()) {
    return;  // invariant 4
  }
  r->flags |= kQueued;
  queue.push_back({n, r});
}

void Store::Impl::Write(std::string_view key, std::string_view value,
                        bool tombstone, Version v) {
  if (v < last_write) {
    throw std::invalid_argument("fdblite: store write below an earlier version");
  }
  last_write = v;
  const uint64_t hash = HashKey(key);
  if (Node* n = index.Find(key, hash)) {
    WriteVersion(n, value, tombstone, v);
    return;
  }
  // Nothing visible to clear in memory; an overlay keeps the clear, which
  // hides the engine's value.
  if (tombstone && !overlay) return;
  // A new key. Allocate everything first (index room, queue room, node,
  // record), so a failure leaves the store as it was; then link.
  index.ReserveOne();
  if (overlay) queue.ReserveOne();
  const int h = RandomHeight();
  Node* n = NewNode(&held, key, h);
  try {
    n->newest = NewRecord(&held, v, value, tombstone, nullptr);
  } catch (...) {
    FreeNode(&held, n);
    throw;
  }
  Node* prevs[kMaxHeight];
  FindGreaterOrEqual(key, prevs);
  if (h > height) {
    for (int i = height; i < h; ++i) prevs[i] = head;
    height = h;
  }
  for (int i = 0; i < h; ++i) {
    n->next()[i] = prevs[i]->next()[i];
    prevs[i]->next()[i] = n;
  }
  n->prev = prevs[0];
  Node* succ = n->next()[0];
  (succ != nullptr ? succ->prev : head->prev) = n;
  index.Insert(n, hash);
  ++nodes;
  ++records;
  if (overlay) MaybeQueue(n, n->newest);
}

void Store::Impl::WriteVersion(Node* n, std::string_view value, bool tombstone,
                               Version v) {
  VersionRecord* r = n->newest;
  if (tombstone && r->tombstone()) return;  // already cleared
  queue.ReserveOne();  // MaybeQueue below then cannot throw
  if (r->version != v) {
    n->newest = NewRecord(&held, v, value, tombstone, r);
    ++records;
    MaybeQueue(n, n->newest);
    return;
  }
  // A second write at the same version replaces the first: in place when the
  // value fits, else by a new record in the same chain position.
  if (value.size() <= r->value_len) {
    r->value_len = static_cast<uint32_t>(value.size());
    if (!value.empty()) std::memcpy(r->value_data(), value.data(), value.size());
    r->flags = static_cast<uint8_t>((r->flags & ~kTombstone) |
                                    (tombstone ? kTombstone : 0));
    MaybeQueue(n, r);
    return;
  }
  VersionRecord* fresh = NewRecord(&held, v, value, tombstone, r->older);
  n->newest = fresh;
  r->older = nullptr;
  if ((r->flags & kQueued) != 0) {
    r->flags |= kDetached;  // invariant 5: its queue entry frees it
    ++detached;
  } else {
    FreeRecord(&held, r);
  }
  MaybeQueue(n, fresh);
}

void Store::Impl::FreeOlder(VersionRecord* r) {
  VersionRecord* x = r->older;
  r->older = nullptr;
  while (x != nullptr) {
    VersionRecord* older = x->older;
    assert((x->flags & kQueued) == 0);
    FreeRecord(&held, x);
    --records;
    x = older;
  }
}

void Store::Impl::Unlink(Node* n) {
  Node* prevs[kMaxHeight];
  FindGreaterOrEqual(n->key(), prevs);
  for (int i = 0; i < n->height; ++i) {
    assert(prevs[i]->next()[i] == n);
    prevs[i]->next()[i] = n->next()[i];
  }
  Node* succ = n->next()[0];
  (succ != nullptr ? succ->prev : head->prev) = n->prev;
  index.Erase(n);
  --nodes;
}

void Store::Impl::Prune(Version oldest) {
  while (!queue.empty() && queue.front().rec->version <= oldest) {
    GcQueue::Entry e = queue.pop_front();
    VersionRecord* r = e.rec;
    if ((r->flags & kDetached) != 0) {
      FreeRecord(&held, r);
      --detached;
      continue;
    }
    r->flags &= ~kQueued;
    // r is a version <= oldest, so reads at >= oldest never see below it.
    FreeOlder(r);
    // Entries for this node's older records came earlier, and it has no newer
    // record, so nothing else in the queue refers to it.
    if (e.node->newest == r && r->tombstone()) {
      Unlink(e.node);
      FreeRecord(&held, r);
      --records;
      FreeNode(&held, e.node);
    }
  }
  queue.MaybeShrink();
  index.MaybeShrink();
}

void Store::Impl::FreeNodeAndChain(Node* n) {
  Unlink(n);
  VersionRecord* r = n->newest;
  while (r != nullptr) {
    VersionRecord* older = r->older;
    assert((r->flags & kQueued) == 0);
    FreeRecord(&held, r);
    --records;
    r = older;
  }
  FreeNode(&held, n);
}

void Store::Impl::Forget(Version applied,
                         const std::function<void(std::string_view)>& dropped) {
  assert(overlay);
  while (!queue.empty() && queue.front().rec->version <= applied) {
    GcQueue::Entry e = queue.pop_front();
    VersionRecord* r = e.rec;
    if ((r->flags & kDetached) != 0) {
      FreeRecord(&held, r);
      --detached;
      continue;
    }
    r->flags &= ~kQueued;
    // Every record older than r has a smaller version, so its entry (if
    // any: pinned records have none) was popped before this one.
    if (e.node->newest == r) {
      // The engine holds the key's state at `applied`, which is r's.
      if (dropped) dropped(e.node->key());
      FreeNodeAndChain(e.node);
    } else {
      // A newer record exists: reads at >= applied need r at most.
      FreeOlder(r);
    }
  }
  queue.MaybeShrink();
  index.MaybeShrink();
}

Store::Store(StoreKind kind)
    : impl_(std::make_unique<Impl>(kind == StoreKind::kOverlay)) {}
Store::~Store() = default;

bool Store::Get(std::string_view key, Version v, std::string* value) const {
  const Node* n = impl_->index.Find(key, HashKey(key));
  if (n == nullptr) return false;
  const VersionRecord* r = Visible(n, v);
  if (r == nullptr) return false;
  if (value != nullptr) value->assign(r->value_data(), r->value_len);
  return true;
}

Lookup Store::Find(std::string_view key, Version v, std::string* value) const {
  const Node* n = impl_->index.Find(key, HashKey(key));
  if (n == nullptr) return Lookup::kUnknown;
  const VersionRecord* r = AtOrBelow(n, v);
  if (r == nullptr) return Lookup::kUnknown;
  if (r->tombstone()) return Lookup::kTombstone;
  if (value != nullptr) value->assign(r->value_data(), r->value_len);
  return Lookup::kValue;
}

void Store::Set(std::string_view key, std::string_view value, Version v) {
  impl_->Write(key, value, false, v);
}

void Store::Clear(std::string_view key, Version v) {
  impl_->Write(key, {}, true, v);
}

void Store::ClearRange(std::string_view begin, std::string_view end, Version v) {
  if (begin >= end) return;
  if (v < impl_->last_write) {
    throw std::invalid_argument("fdblite: store write below an earlier version");
  }
  impl_->last_write = v;
  for (Node* n = impl_->FindGreaterOrEqual(begin, nullptr);
       n != nullptr && KeyLess(n->key(), end); n = n->next()[0]) {
    if (!n->newest->tombstone()) impl_->WriteVersion(n, {}, true, v);
  }
}

void Store::Prune(Version oldest) { impl_->Prune(oldest); }
void Store::Forget(Version applied,
                   const std::function<void(std::string_view)>& dropped) {
  impl_->Forget(applied, dropped);
}

size_t Store::Impl::MemoryBytes() const {
  return held + index.capacity() * sizeof(uintptr_t) +
         queue.capacity() * sizeof(GcQueue::Entry);
}

size_t Store::MemoryBytes() const { return impl_->MemoryBytes(); }

size_t Store::KeyNodes() const { return impl_->nodes; }
size_t Store::VersionRecords() const { return impl_->records; }

uint64_t Store::EstimateRangeBytes(std::string_view begin, std::string_view end,
                                   Version v) const {
  uint64_t total = 0;
  for (const Node* n = impl_->FindGreaterOrEqual(begin, nullptr);
       n != nullptr && KeyLess(n->key(), end); n = n->next()[0]) {
    if (const VersionRecord* r = Visible(n, v)) total += n->key_len + r->value_len;
  }
  return total;
}

std::vector<std::string> Store::SplitPoints(std::string_view begin,
                                            std::string_view end, Version v,
                                            int64_t chunk_bytes) const {
  std::vector<std::string> points;
  points.emplace_back(begin);
  uint64_t chunk = chunk_bytes < 1 ? 1 : static_cast<uint64_t>(chunk_bytes);
  uint64_t acc = 0;
  if (begin < end) {
    for (const Node* n = impl_->FindGreaterOrEqual(begin, nullptr);
         n != nullptr && KeyLess(n->key(), end); n = n->next()[0]) {
      const VersionRecord* r = Visible(n, v);
      if (r == nullptr) continue;
      // acc > 0 means an earlier key lies in this chunk, so n->key() > begin.
      if (acc >= chunk) {
        points.emplace_back(n->key());
        acc = 0;
      }
      acc += n->key_len + r->value_len;
    }
  }
  points.emplace_back(end);
  return points;
}

// Cursor ----------------------------------------------------------------

struct Store::Cursor::Impl {
  const Store::Impl* store;
  Version version;
  bool raw;                            // stop at tombstones too
  const Node* node = nullptr;          // null when not Valid()
  const VersionRecord* rec = nullptr;  // node's record at version

  const VersionRecord* At(const Node* n) const {
    return raw ? AtOrBelow(n, version) : Visible(n, version);
  }

  // Forward settles on the first visible node at or after n.
  void Forward(const Node* n) {
    while (n != nullptr) {
      if ((rec = At(n)) != nullptr) break;
      n = n->next()[0];
    }
    node = n;
  }
  // Backward settles on the last visible node at or before n.
  void Backward(const Node* n) {
    while (n != store->head) {
      if ((rec = At(n)) != nullptr) {
        node = n;
        return;
      }
      n = n->prev;
    }
    node = nullptr;
  }
};

Store::Cursor::Cursor(const Store& store, Version v, bool raw)
    : impl_(std::make_unique<Impl>(Impl{store.impl_.get(), v, raw})) {}
Store::Cursor::~Cursor() = default;

void Store::Cursor::Seek(std::string_view key) {
  impl_->Forward(impl_->store->FindGreaterOrEqual(key, nullptr));
}
void Store::Cursor::SeekBefore(std::string_view key) {
  impl_->Backward(impl_->store->FindLessThan(key));
}
void Store::Cursor::SeekToFirst() {
  impl_->Forward(impl_->store->head->next()[0]);
}
void Store::Cursor::SeekToLast() { impl_->Backward(impl_->store->head->prev); }
bool Store::Cursor::Valid() const { return impl_->node != nullptr; }
void Store::Cursor::Next() { impl_->Forward(impl_->node->next()[0]); }
void Store::Cursor::Prev() { impl_->Backward(impl_->node->prev); }
std::string_view Store::Cursor::key() const { return impl_->node->key(); }
std::string_view Store::Cursor::value() const { return impl_->rec->value(); }
bool Store::Cursor::tombstone() const { return impl_->rec->tombstone(); }

// store_testing is for tests/store_test.cpp only (it declares these itself;
// the library's version script exports nothing of it).
namespace store_testing {
// IndexVisits counts, for the calling thread, the nodes whose key an index
// lookup has compared (one per Get of a present key, plus one per colliding
// key on its probe path).
uint64_t IndexVisits() { return index_visits; }
}  // namespace store_testing

}  // namespace fdblite
