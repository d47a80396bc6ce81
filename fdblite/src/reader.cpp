// reader.cpp: see reader.h.
#include "reader.h"

#include "key_order.h"

namespace fdblite {

bool Reader::Get(std::string_view key, Version v, std::string* value) const {
  if (!disk_) return store_->Get(key, v, value);
  switch (store_->Find(key, v, value)) {
    case Lookup::kValue:
      return true;
    case Lookup::kTombstone:
      return false;
    case Lookup::kUnknown:
      break;
  }
  if (clears_->Covered(key, v, nullptr, nullptr)) return false;
  if (rows_ == nullptr || value == nullptr) return disk_->Get(key, value);
  bool present;
  if (rows_->Get(key, &present, value)) return present;
  present = disk_->Get(key, value);
  rows_->Put(key, present ? value : nullptr);
  return present;
}

Reader::Cursor::Cursor(const Reader& reader, Version v)
    : reader_(reader), version_(v), mem_(*reader.store_, v, reader.durable()) {}

Reader::Cursor::~Cursor() = default;

void Reader::Cursor::Seek(std::string_view key) {
  forward_ = true;
  mem_.Seek(key);
  if (reader_.disk_) {
    if (!disk_) disk_ = std::make_unique<DiskReader::Cursor>(reader_.disk_);
    disk_->Seek(key);
  }
  SettleForward();
}

void Reader::Cursor::SeekBefore(std::string_view key) {
  forward_ = false;
  mem_.SeekBefore(key);
  if (reader_.disk_) {
    if (!disk_) disk_ = std::make_unique<DiskReader::Cursor>(reader_.disk_);
    disk_->SeekBefore(key);
  }
  SettleBackward();
}

void Reader::Cursor::Next() {
  if (!forward_) {
    // Turn: re-seek both sources just past the current key.
    turn_.assign(key());
    turn_.push_back('\0');
    Seek(turn_);
    return;
  }
  if (src_ != kDisk) mem_.Next();
  if (src_ != kMem) disk_->Step();
  SettleForward();
}

void Reader::Cursor::Prev() {
  if (forward_) {
    turn_.assign(key());
    SeekBefore(turn_);
    return;
  }
  if (src_ != kDisk) mem_.Prev();
  if (src_ != kMem) disk_->Step();
  SettleBackward();
}

std::string_view Reader::Cursor::key() const {
  return src_ == kDisk ? disk_->key() : mem_.key();
}

std::string_view Reader::Cursor::value() const {
  return src_ == kDisk ? disk_->value() : mem_.value();
}

void Reader::Cursor::SettleForward() {
  if (!disk_) {
    valid_ = mem_.Valid();
    src_ = kMem;
    return;
  }
  const RangeClears& clears = *reader_.clears_;
  std::string skip_to;
  for (;;) {
    // An engine row a clear at <= v covers is absent: skip its segment.
    while (disk_->Valid() && !clears.empty() &&
           clears.Covered(disk_->key(), version_, nullptr, &skip_to)) {
      disk_->Seek(skip_to);
    }
    const bool mem_ok = mem_.Valid(), disk_ok = disk_->Valid();
    if (!mem_ok && !disk_ok) {
      valid_ = false;
      return;
    }
    if (mem_ok && (!disk_ok || !KeyLess(disk_->key(), mem_.key()))) {
      const bool both = disk_ok && disk_->key() == mem_.key();
      if (mem_.tombstone()) {  // memory decides: absent at v
        mem_.Next();
        if (both) disk_->Step();
        continue;
      }
      src_ = both ? kBoth : kMem;
    } else {
      src_ = kDisk;
    }
    valid_ = true;
    return;
  }
}

void Reader::Cursor::SettleBackward() {
  if (!disk_) {
    valid_ = mem_.Valid();
    src_ = kMem;
    return;
  }
  const RangeClears& clears = *reader_.clears_;
  std::string skip_to;
  for (;;) {
    while (disk_->Valid() && !clears.empty() &&
           clears.Covered(disk_->key(), version_, &skip_to, nullptr)) {
      disk_->SeekBefore(skip_to);
    }
    const bool mem_ok = mem_.Valid(), disk_ok = disk_->Valid();
    if (!mem_ok && !disk_ok) {
      valid_ = false;
      return;
    }
    if (mem_ok && (!disk_ok || !KeyLess(mem_.key(), disk_->key()))) {
      const bool both = disk_ok && disk_->key() == mem_.key();
      if (mem_.tombstone()) {
        mem_.Prev();
        if (both) disk_->Step();
        continue;
      }
      src_ = both ? kBoth : kMem;
    } else {
      src_ = kDisk;
    }
    valid_ = true;
    return;
  }
}

uint64_t Reader::EstimateRangeBytes(std::string_view begin, std::string_view end,
                                    Version v) const {
  if (!disk_) return store_->EstimateRangeBytes(begin, end, v);
  uint64_t total = 0;
  if (!KeyLess(begin, end)) return 0;
  Cursor c(*this, v);
  for (c.Seek(begin); c.Valid() && KeyLess(c.key(), end); c.Next()) {
    total += c.key().size() + c.value().size();
  }
  return total;
}

std::vector<std::string> Reader::SplitPoints(std::string_view begin,
                                             std::string_view end, Version v,
                                             int64_t chunk_bytes) const {
  if (!disk_) return store_->SplitPoints(begin, end, v, chunk_bytes);
  std::vector<std::string> points;
  points.emplace_back(begin);
  uint64_t chunk = chunk_bytes < 1 ? 1 : static_cast<uint64_t>(chunk_bytes);
  uint64_t acc = 0;
  if (KeyLess(begin, end)) {
    Cursor c(*this, v);
    for (c.Seek(begin); c.Valid() && KeyLess(c.key(), end); c.Next()) {
      if (acc >= chunk) {
        points.emplace_back(c.key());
        acc = 0;
      }
      acc += c.key().size() + c.value().size();
    }
  }
  points.emplace_back(end);
  return points;
}

}  // namespace fdblite
