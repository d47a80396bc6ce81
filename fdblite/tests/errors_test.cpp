// errors_test.cpp: table tests for errors.h.
//
// Expected messages are FoundationDB's own strings (flow's error table);
// predicate sets are 7.3's fdb_error_predicate.
#include <climits>
#include <string>

#include "errors.h"
#include "test.h"

namespace {

struct MessageCase {
  int code;
  const char* message;
};

}  // namespace

TEST("ErrorMessage known codes") {
  const MessageCase cases[] = {
      {0, "Success"},
      {1, "End of stream"},
      {1000, "Operation failed"},
      {1004, "Operation timed out"},
      {1007, "Transaction is too old to perform reads or be committed"},
      {1009, "Request for future version"},
      {1020, "Transaction not committed due to conflict with another transaction"},
      {1021, "Transaction may or may not have committed"},
      {1022, "Idempotency id for transaction may have expired, so the commit status of the transaction cannot "
             "be determined"},
      {1025, "Operation aborted because the transaction was cancelled"},
      {1031, "Operation aborted because the transaction timed out"},
      {1032, "Too many watches currently set"},
      {1034, "Watches cannot be set if read your writes is disabled"},
      {1036, "Read or wrote an unreadable key"},
      {1037, "Storage process does not have recent mutations"},
      {1038, "Database is locked"},
      {1039, "The protocol version of the cluster has changed"},
      {1042, "CommitProxy commit memory limit exceeded"},
      {1051, "Batch GRV request rate limit exceeded"},
      {1078, "GetReadVersion proxy memory limit exceeded"},
      {1079, "BlobGranule request failed"},
      {1100, "Broken promise"},
      {1101, "Asynchronous operation cancelled"},
      {1102, "Future has been released"},
      {1213, "Transaction tag is being throttled"},
      {1223, "Exceeded maximum proxy tag throttling duration"},
      {1515, "No cluster file found in current directory or default location"},
      {2000, "Invalid API call"},
      {2004, "Key outside legal range"},
      {2005, "Range begin key larger than end key"},
      {2006, "Option set with an invalid value"},
      {2007, "Option not valid in this context"},
      {2008, "Action not possible before the network is configured"},
      {2009, "Network can be configured only once"},
      {2010, "Transaction already has a read version set"},
      {2011, "Version not valid"},
      {2012, "Range limits not valid"},
      {2013, "Database name must be 'DB'"},
      {2015, "Future not ready"},
      {2016, "Future not an error"},
      {2017, "Operation issued while a commit was outstanding"},
      {2018, "Unrecognized atomic mutation type"},
      {2020, "Transaction does not have a valid commit version"},
      {2021, "Transaction is read-only and therefore does not have a commit version"},
      {2025, "Network can only be started once"},
      {2026, "Detected a deadlock in a callback called from the network thread"},
      {2101, "Transaction exceeds byte limit"},
      {2102, "Key length exceeds limit"},
      {2103, "Value length exceeds limit"},
      {2104, "Connection string invalid"},
      {2108, "Operation is not supported"},
      {2109, "Too many tags set on transaction"},
      {2110, "Tag set on transaction is too long"},
      {2112, "Special key space range read crosses modules. Refer to the `special_key_space_relaxed' "
             "transaction option for more details."},
      {2113, "Special key space range read does not intersect a module. Refer to the "
             "`special_key_space_relaxed' transaction option for more details."},
      {2114, "Special Key space is not allowed to write by default. Refer to the "
             "`special_key_space_enable_writes` transaction option for more details."},
      {2115, "Special key space key or keyrange in set or clear does not intersect a module"},
      {2131, "Tenant does not exist"},
      {2132, "A tenant with the given name already exists"},
      {2134, "Tenant name cannot begin with \\xff"},  // a literal backslash, not byte 0xff
      {2136, "Tenants have been disabled in the cluster"},
      {2200, "API version is not set"},
      {2201, "API version may be set only once"},
      {2202, "API version not valid"},
      {2203, "API version not supported"},
      {2210, "EXACT streaming mode requires limits, but none were given"},
      {4000, "An unknown error occurred"},
      {4100, "An internal error occurred"},
      {4200, "Not implemented yet"},
      {6000, "Client tried to access unauthorized data"},
  };
  for (const MessageCase& c : cases) {
    const std::string got = fdblite::ErrorMessage(c.code);
    if (got != c.message) {
      ::fdblite_test::Fail(__FILE__, __LINE__, "ErrorMessage(" + std::to_string(c.code) + ") = " + got);
    }
  }
  // The message of 2134 holds the four characters \ x f f.
  const std::string tenant = fdblite::ErrorMessage(2134);
  EXPECT_EQ(tenant.substr(tenant.size() - 4), std::string("\\xff"));
}

TEST("ErrorMessage unknown codes") {
  // Unlisted but in [0, 30000]: the literal "UNKNOWN_ERROR".
  for (int code : {2, 999, 1013, 1019, 1023, 1045, 2001, 2137, 2205, 3000, 4001, 5000, 29999, 30000}) {
    if (std::string(fdblite::ErrorMessage(code)) != "UNKNOWN_ERROR") {
      ::fdblite_test::Fail(__FILE__, __LINE__, "ErrorMessage(" + std::to_string(code) + ") should be unknown");
    }
  }
  // Outside [0, 30000]: the message of unknown_error (4000).
  for (int code : {-1, -2000, 30001, 50000, INT_MIN, INT_MAX}) {
    if (std::string(fdblite::ErrorMessage(code)) != "An unknown error occurred") {
      ::fdblite_test::Fail(__FILE__, __LINE__, "ErrorMessage(" + std::to_string(code) + ") should be 4000's");
    }
  }
}

TEST("ErrorMessage pointers are static") {
  // The same code gives the same pointer: nothing is allocated per call.
  EXPECT_TRUE(fdblite::ErrorMessage(1020) == fdblite::ErrorMessage(1020));
  EXPECT_TRUE(fdblite::ErrorMessage(12345) == fdblite::ErrorMessage(12346));
  EXPECT_TRUE(fdblite::ErrorMessage(-5) == fdblite::ErrorMessage(4000));
}

TEST("MatchesPredicate") {
  struct PredicateCase {
    int code;
    bool retryable;
    bool maybe_committed;
    bool retryable_not_committed;
  };
  const PredicateCase cases[] = {
      // maybe committed
      {1021, true, true, false},   // commit_unknown_result
      {1039, true, true, false},   // cluster_version_changed
      // retryable, surely not committed
      {1020, true, false, true},   // not_committed
      {1007, true, false, true},   // transaction_too_old
      {1009, true, false, true},   // future_version
      {1038, true, false, true},   // database_locked
      {1078, true, false, true},   // grv_proxy_memory_limit_exceeded
      {1042, true, false, true},   // commit_proxy_memory_limit_exceeded
      {1051, true, false, true},   // batch_transaction_throttled
      {1037, true, false, true},   // process_behind
      {1213, true, false, true},   // tag_throttled
      {1223, true, false, true},   // proxy_tag_throttled (7.3)
      // neither
      {0, false, false, false},
      {1000, false, false, false},
      {1004, false, false, false},  // timed_out
      {1022, false, false, false},  // commit_unknown_result_fatal
      {1025, false, false, false},  // transaction_cancelled
      {1031, false, false, false},  // transaction_timed_out
      {1101, false, false, false},  // operation_cancelled
      {1235, false, false, false},  // retryable only in newer releases
      {1242, false, false, false},
      {2000, false, false, false},
      {2017, false, false, false},
      {4000, false, false, false},
      {4100, false, false, false},
      {-1, false, false, false},
      {INT_MAX, false, false, false},
  };
  for (const PredicateCase& c : cases) {
    const std::string code = std::to_string(c.code);
    if (fdblite::MatchesPredicate(fdblite::kPredicateRetryable, c.code) != c.retryable) {
      ::fdblite_test::Fail(__FILE__, __LINE__, "RETRYABLE " + code);
    }
    if (fdblite::MatchesPredicate(fdblite::kPredicateMaybeCommitted, c.code) != c.maybe_committed) {
      ::fdblite_test::Fail(__FILE__, __LINE__, "MAYBE_COMMITTED " + code);
    }
    if (fdblite::MatchesPredicate(fdblite::kPredicateRetryableNotCommitted, c.code) !=
        c.retryable_not_committed) {
      ::fdblite_test::Fail(__FILE__, __LINE__, "RETRYABLE_NOT_COMMITTED " + code);
    }
  }
  // Predicate values must match FDBErrorPredicate exactly.
  EXPECT_EQ(static_cast<int>(fdblite::kPredicateRetryable), 50000);
  EXPECT_EQ(static_cast<int>(fdblite::kPredicateMaybeCommitted), 50001);
  EXPECT_EQ(static_cast<int>(fdblite::kPredicateRetryableNotCommitted), 50002);
  // Any other predicate value is false, for every code.
  for (int predicate : {0, 1, 49999, 50003, -50000, INT_MAX}) {
    for (int code : {1020, 1021, 1007, 0}) {
      if (fdblite::MatchesPredicate(predicate, code)) {
        ::fdblite_test::Fail(__FILE__, __LINE__, "predicate " + std::to_string(predicate));
      }
    }
  }
}

TEST("Error carries its code and message") {
  try {
    throw fdblite::Error(fdblite::kNotCommitted);
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("Transaction not committed due to conflict with another transaction"));
    const auto* fe = dynamic_cast<const fdblite::Error*>(&e);
    ASSERT_TRUE(fe != nullptr);
    EXPECT_EQ(fe->code(), 1020);
  }
}
