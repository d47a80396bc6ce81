// errors.h: FoundationDB error codes, their messages and the error predicates.
//
// Codes and names are FoundationDB's (they are data: bindings switch on them);
// the table lives in errors.cpp.
#ifndef FDBLITE_ERRORS_H_
#define FDBLITE_ERRORS_H_

#include <exception>

namespace fdblite {

// The error codes fdblite itself raises. Every code FoundationDB defines has
// a message in errors.cpp, not only these.
enum ErrorCode : int {
  kSuccess = 0,
  kOperationFailed = 1000,
  kTimedOut = 1004,
  kTransactionTooOld = 1007,
  kFutureVersion = 1009,
  kNotCommitted = 1020,
  kCommitUnknownResult = 1021,
  kTransactionCancelled = 1025,
  kTransactionTimedOut = 1031,
  kTooManyWatches = 1032,
  kWatchesDisabled = 1034,
  kAccessedUnreadable = 1036,
  kProcessBehind = 1037,
  kDatabaseLocked = 1038,
  kCommitProxyMemoryLimitExceeded = 1042,
  kBatchTransactionThrottled = 1051,
  kGrvProxyMemoryLimitExceeded = 1078,
  kBrokenPromise = 1100,
  kOperationCancelled = 1101,
  kFutureReleased = 1102,
  kTagThrottled = 1213,
  kIoError = 1510,
  kFileNotReadable = 1513,
  kFileNotWritable = 1514,
  kNoClusterFileFound = 1515,
  kFileCorrupt = 1522,
  kLockFileFailure = 1529,
  kClientInvalidOperation = 2000,
  kKeyOutsideLegalRange = 2004,
  kInvertedRange = 2005,
  kInvalidOptionValue = 2006,
  kInvalidOption = 2007,
  kNetworkNotSetup = 2008,
  kNetworkAlreadySetup = 2009,
  kReadVersionAlreadySet = 2010,
  kVersionInvalid = 2011,
  kRangeLimitsInvalid = 2012,
  kFutureNotSet = 2015,
  kFutureNotError = 2016,
  kUsedDuringCommit = 2017,
  kInvalidMutationType = 2018,
  kTransactionInvalidVersion = 2020,
  kNoCommitVersion = 2021,
  kNetworkCannotBeRestarted = 2025,
  kBlockedFromNetworkThread = 2026,
  kTransactionTooLarge = 2101,
  kKeyTooLarge = 2102,
  kValueTooLarge = 2103,
  kConnectionStringInvalid = 2104,
  kUnsupportedOperation = 2108,
  kTooManyTags = 2109,
  kTagTooLong = 2110,
  kSpecialKeysNoModuleFound = 2113,
  kSpecialKeysWriteDisabled = 2114,
  kSpecialKeysNoWriteModuleFound = 2115,
  kTenantNotFound = 2131,
  kTenantsDisabled = 2136,
  kApiVersionUnset = 2200,
  kApiVersionAlreadySet = 2201,
  kApiVersionInvalid = 2202,
  kApiVersionNotSupported = 2203,
  kExactModeWithoutLimits = 2210,
  kUnknownError = 4000,
  kInternalError = 4100,
  kNotImplemented = 4200,
};

// ErrorMessage returns the static message FoundationDB gives for `code`:
// "Success" for 0, "UNKNOWN_ERROR" for an unknown code in [0, 30000], and
// the message of 4000 (unknown_error) for a code outside that range. The
// pointer is valid for the life of the process.
const char* ErrorMessage(int code) noexcept;

// The FDBErrorPredicate values of fdb_error_predicate.
enum ErrorPredicate : int {
  kPredicateRetryable = 50000,
  kPredicateMaybeCommitted = 50001,
  kPredicateRetryableNotCommitted = 50002,
};

// MatchesPredicate implements fdb_error_predicate for API 730: MAYBE_COMMITTED
// is {1021, 1039}; RETRYABLE_NOT_COMMITTED is {1020, 1007, 1009, 1038, 1078,
// 1042, 1051, 1037, 1213, 1223}; RETRYABLE is their union; any other
// predicate value is false.
bool MatchesPredicate(int predicate, int code) noexcept;

// Error is the exception fdblite code throws internally; the C boundary turns
// it into an fdb_error_t or a failed future. Never let it cross extern "C".
class Error : public std::exception {
 public:
  explicit Error(int code) noexcept : code_(code) {}
  int code() const noexcept { return code_; }
  const char* what() const noexcept override { return ErrorMessage(code_); }

 private:
  int code_;
};

}  // namespace fdblite

#endif  // FDBLITE_ERRORS_H_
