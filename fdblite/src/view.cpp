// view.cpp: see view.h.
#include "view.h"

#include "atomic.h"

namespace fdblite {

bool ResolveEntry(const WriteEntry& e, const std::string* db_value,
                  int api_version, std::string* out) {
  switch (e.kind) {
    case WriteEntry::kSet:
      *out = e.value;
      return true;
    case WriteEntry::kClear:
      return false;
    case WriteEntry::kAtomic: {
      std::optional<std::string> v;
      if (db_value) v = *db_value;
      for (const auto& [type, param] : e.ops) {
        v = ApplyAtomic(type, v, param, api_version);
      }
      if (!v) return false;
      *out = std::move(*v);
      return true;
    }
  }
  return false;
}

bool View::TakePoint(bool both) {
  const WriteEntry& e = point_->second;
  const std::string* dbv = nullptr;
  if (both) {
    db_copy_.assign(db_.value());
    dbv = &db_copy_;
  }
  if (!ResolveEntry(e, dbv, api_version_, &computed_)) return false;
  src_ = both ? kBoth : kPoint;
  key_ = point_->first;
  value_ = computed_;
  unreadable_ = e.unreadable;
  valid_ = true;
  return true;
}

void View::TakeDb() {
  src_ = kDb;
  key_ = db_.key();
  value_ = db_.value();
  unreadable_ = false;
  valid_ = true;
}

ForwardView::ForwardView(const Reader& reader, Version v, const WriteMap* writes,
                         int api_version, std::string_view start,
                         std::string_view limit)
    : View(reader, v, writes, api_version, limit) {
  db_.Seek(start);
  if (writes_) point_ = writes_->points.lower_bound(start);
  Find();
}

void ForwardView::Next() {
  if (src_ == kDb || src_ == kBoth) db_.Next();
  if (src_ == kPoint || src_ == kBoth) ++point_;
  Find();
}

void ForwardView::Find() {
  valid_ = false;
  src_ = kNone;
  for (;;) {
    if (writes_ && !writes_->cleared.empty()) {
      while (db_.Valid()) {
        auto* r = writes_->ClearedRange(db_.key());
        if (!r) break;
        db_.Seek(r->second);
      }
    }
    bool db_ok = db_.Valid();
    bool point_ok = writes_ && point_ != writes_->points.end();
    if (!db_ok && !point_ok) return;
    if (point_ok && (!db_ok || std::string_view(point_->first) <= db_.key())) {
      bool both = db_ok && std::string_view(point_->first) == db_.key();
      if (std::string_view(point_->first) >= limit_) return;
      if (TakePoint(both)) return;
      if (both) db_.Next();
      ++point_;
      continue;
    }
    if (db_.key() >= limit_) return;
    TakeDb();
    return;
  }
}

ReverseView::ReverseView(const Reader& reader, Version v, const WriteMap* writes,
                         int api_version, std::string_view start,
                         std::string_view limit)
    : View(reader, v, writes, api_version, limit) {
  std::string_view from = start < limit ? start : limit;
  db_.SeekBefore(from);
  if (writes_) {
    point_ = writes_->points.lower_bound(from);
    point_done_ = point_ == writes_->points.begin();
    if (!point_done_) --point_;
  }
  Find();
}

void ReverseView::StepPoint() {
  if (point_ == writes_->points.begin()) {
    point_done_ = true;
  } else {
    --point_;
  }
}

void ReverseView::Prev() {
  if (src_ == kDb || src_ == kBoth) db_.Prev();
  if (src_ == kPoint || src_ == kBoth) StepPoint();
  Find();
}

void ReverseView::Find() {
  valid_ = false;
  src_ = kNone;
  for (;;) {
    if (writes_ && !writes_->cleared.empty()) {
      while (db_.Valid()) {
        auto* r = writes_->ClearedRange(db_.key());
        if (!r) break;
        db_.SeekBefore(r->first);
      }
    }
    bool db_ok = db_.Valid();
    bool point_ok = writes_ && !point_done_;
    if (!db_ok && !point_ok) return;
    if (point_ok && (!db_ok || std::string_view(point_->first) >= db_.key())) {
      bool both = db_ok && std::string_view(point_->first) == db_.key();
      if (TakePoint(both)) return;
      if (both) db_.Prev();
      StepPoint();
      continue;
    }
    TakeDb();
    return;
  }
}

}  // namespace fdblite
