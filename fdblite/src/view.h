// view.h: iterators over what a transaction reads: the database at its read
// version, overlaid (when read-your-writes applies) with its own writes.
//
// ForwardView starts at the first visible key >= start and walks up;
// ReverseView starts at the last visible key < start and walks down. Both
// stop before `limit` (the maximum readable key). key() and value() are
// valid until the next move.
//
// REQUIRES: the caller holds the database's read lock and the transaction's
// lock for the life of a view.
#ifndef FDBLITE_VIEW_H_
#define FDBLITE_VIEW_H_

#include <string>
#include <string_view>

#include "reader.h"
#include "store.h"
#include "transaction.h"

namespace fdblite {

// ResolveEntry computes the value a point write leaves, given the database
// value (null = absent). Returns false if the key ends up absent.
bool ResolveEntry(const WriteEntry& e, const std::string* db_value,
                  int api_version, std::string* out);

// View is what both directions share: the two sources and the current
// position.
class View {
 public:
  bool Valid() const { return valid_; }
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }
  // unreadable reports whether the current key was written by a
  // versionstamped value in this transaction.
  bool unreadable() const { return unreadable_; }

 protected:
  View(const Reader& reader, Version v, const WriteMap* writes, int api_version,
       std::string_view limit)
      : db_(reader, v), writes_(writes), api_version_(api_version), limit_(limit) {}
  // TakePoint makes the point entry under point_ current if the key is
  // visible (both: the database cursor is on the same key). Returns false
  // if the transaction's writes leave the key absent.
  bool TakePoint(bool both);
  // TakeDb makes the database cursor's key current.
  void TakeDb();

  Reader::Cursor db_;
  const WriteMap* writes_;
  int api_version_;
  std::string_view limit_;
  std::map<std::string, WriteEntry, std::less<>>::const_iterator point_;
  enum { kNone, kDb, kPoint, kBoth } src_ = kNone;
  bool valid_ = false;
  bool unreadable_ = false;
  std::string_view key_, value_;
  std::string db_copy_, computed_;
};

class ForwardView : public View {
 public:
  ForwardView(const Reader& reader, Version v, const WriteMap* writes,
              int api_version, std::string_view start, std::string_view limit);
  void Next();

 private:
  void Find();
};

class ReverseView : public View {
 public:
  ReverseView(const Reader& reader, Version v, const WriteMap* writes,
              int api_version, std::string_view start, std::string_view limit);
  void Prev();

 private:
  void Find();
  void StepPoint();
  bool point_done_ = true;
};

}  // namespace fdblite

#endif  // FDBLITE_VIEW_H_
