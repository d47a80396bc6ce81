/*
 * fdb_c_options.g.h: the option and enumeration codes of the FoundationDB 7.3
 * C API, as served by fdblite. Included by fdb_c.h; do not include directly.
 *
 * Names and numeric codes are FoundationDB's (bindings pass the numbers
 * through unchanged). Parameter kinds: none, Int (8-byte little-endian
 * int64), String, Bytes. "Hidden" marks codes FoundationDB reserves for its
 * own tools; fdblite accepts them but nothing should rely on them.
 */
#ifndef FDB_C_OPTIONS_G_H
#define FDB_C_OPTIONS_G_H
#pragma once

/* Options for fdb_network_set_option. */
typedef enum {
  FDB_NET_OPTION_LOCAL_ADDRESS = 10,                 /* String; deprecated */
  FDB_NET_OPTION_CLUSTER_FILE = 20,                  /* String; deprecated */
  FDB_NET_OPTION_TRACE_ENABLE = 30,                  /* String: trace directory */
  FDB_NET_OPTION_TRACE_ROLL_SIZE = 31,               /* Int: bytes per trace file */
  FDB_NET_OPTION_TRACE_MAX_LOGS_SIZE = 32,           /* Int: bytes over all trace files */
  FDB_NET_OPTION_TRACE_LOG_GROUP = 33,               /* String: LogGroup attribute */
  FDB_NET_OPTION_TRACE_FORMAT = 34,                  /* String: xml or json */
  FDB_NET_OPTION_TRACE_CLOCK_SOURCE = 35,            /* String: now or realtime */
  FDB_NET_OPTION_TRACE_FILE_IDENTIFIER = 36,         /* String: replaces port/pid in file names */
  FDB_NET_OPTION_TRACE_SHARE_AMONG_CLIENT_THREADS = 37, /* no parameter */
  FDB_NET_OPTION_TRACE_INITIALIZE_ON_SETUP = 38,     /* no parameter */
  FDB_NET_OPTION_TRACE_PARTIAL_FILE_SUFFIX = 39,     /* String: suffix of unfinished files */
  FDB_NET_OPTION_KNOB = 40,                          /* String: name=value */
  FDB_NET_OPTION_TLS_PLUGIN = 41,                    /* String; deprecated */
  FDB_NET_OPTION_TLS_CERT_BYTES = 42,                /* Bytes: certificate chain */
  FDB_NET_OPTION_TLS_CERT_PATH = 43,                 /* String: certificate chain file */
  FDB_NET_OPTION_TLS_KEY_BYTES = 45,                 /* Bytes: private key */
  FDB_NET_OPTION_TLS_KEY_PATH = 46,                  /* String: private key file */
  FDB_NET_OPTION_TLS_VERIFY_PEERS = 47,              /* Bytes: peer verification rules */
  FDB_NET_OPTION_BUGGIFY_ENABLE = 48,                /* no parameter */
  FDB_NET_OPTION_BUGGIFY_DISABLE = 49,               /* no parameter */
  FDB_NET_OPTION_BUGGIFY_SECTION_ACTIVATED_PROBABILITY = 50, /* Int: percent */
  FDB_NET_OPTION_BUGGIFY_SECTION_FIRED_PROBABILITY = 51,     /* Int: percent */
  FDB_NET_OPTION_TLS_CA_BYTES = 52,                  /* Bytes: CA bundle */
  FDB_NET_OPTION_TLS_CA_PATH = 53,                   /* String: CA bundle file */
  FDB_NET_OPTION_TLS_PASSWORD = 54,                  /* String: private key passphrase */
  FDB_NET_OPTION_DISABLE_MULTI_VERSION_CLIENT_API = 60, /* no parameter; before setup */
  FDB_NET_OPTION_CALLBACKS_ON_EXTERNAL_THREADS = 61, /* no parameter; before setup */
  FDB_NET_OPTION_EXTERNAL_CLIENT_LIBRARY = 62,       /* String: library path */
  FDB_NET_OPTION_EXTERNAL_CLIENT_DIRECTORY = 63,     /* String: directory of libraries */
  FDB_NET_OPTION_DISABLE_LOCAL_CLIENT = 64,          /* no parameter; before setup */
  FDB_NET_OPTION_CLIENT_THREADS_PER_VERSION = 65,    /* Int: threads per client version */
  FDB_NET_OPTION_FUTURE_VERSION_CLIENT_LIBRARY = 66, /* String: library path */
  FDB_NET_OPTION_RETAIN_CLIENT_LIBRARY_COPIES = 67,  /* no parameter */
  FDB_NET_OPTION_IGNORE_EXTERNAL_CLIENT_FAILURES = 68, /* no parameter */
  FDB_NET_OPTION_FAIL_INCOMPATIBLE_CLIENT = 69,      /* no parameter */
  FDB_NET_OPTION_DISABLE_CLIENT_STATISTICS_LOGGING = 70, /* no parameter */
  FDB_NET_OPTION_ENABLE_SLOW_TASK_PROFILING = 71,    /* no parameter; old name of 71 */
  FDB_NET_OPTION_ENABLE_RUN_LOOP_PROFILING = 71,     /* no parameter */
  FDB_NET_OPTION_DISABLE_CLIENT_BYPASS = 72,         /* no parameter; before setup */
  FDB_NET_OPTION_CLIENT_BUGGIFY_ENABLE = 80,         /* no parameter */
  FDB_NET_OPTION_CLIENT_BUGGIFY_DISABLE = 81,        /* no parameter */
  FDB_NET_OPTION_CLIENT_BUGGIFY_SECTION_ACTIVATED_PROBABILITY = 82, /* Int: percent */
  FDB_NET_OPTION_CLIENT_BUGGIFY_SECTION_FIRED_PROBABILITY = 83,     /* Int: percent */
  FDB_NET_OPTION_DISTRIBUTED_CLIENT_TRACER = 90,     /* String: none, log_file or network_lossy */
  FDB_NET_OPTION_CLIENT_TMP_DIR = 91,                /* String: directory for temporary files */
  FDB_NET_OPTION_SUPPORTED_CLIENT_VERSIONS = 1000,   /* String; hidden */
  FDB_NET_OPTION_EXTERNAL_CLIENT = 1001,             /* no parameter; hidden */
  FDB_NET_OPTION_EXTERNAL_CLIENT_TRANSPORT_ID = 1002 /* Int; hidden */
} FDBNetworkOption;

/* Options for fdb_database_set_option. The TRANSACTION_* ones are defaults
 * copied into every transaction the database creates. */
typedef enum {
  FDB_DB_OPTION_LOCATION_CACHE_SIZE = 10,            /* Int: cache entries */
  FDB_DB_OPTION_MAX_WATCHES = 20,                    /* Int: outstanding watches, at most 1000000 */
  FDB_DB_OPTION_MACHINE_ID = 21,                     /* String: hex machine id */
  FDB_DB_OPTION_DATACENTER_ID = 22,                  /* String: hex datacenter id */
  FDB_DB_OPTION_SNAPSHOT_RYW_ENABLE = 26,            /* no parameter */
  FDB_DB_OPTION_SNAPSHOT_RYW_DISABLE = 27,           /* no parameter */
  FDB_DB_OPTION_TRANSACTION_LOGGING_MAX_FIELD_LENGTH = 405, /* Int; default for tr 405 */
  FDB_DB_OPTION_TRANSACTION_TIMEOUT = 500,           /* Int ms; default for tr 500 */
  FDB_DB_OPTION_TRANSACTION_RETRY_LIMIT = 501,       /* Int; default for tr 501 */
  FDB_DB_OPTION_TRANSACTION_MAX_RETRY_DELAY = 502,   /* Int ms; default for tr 502 */
  FDB_DB_OPTION_TRANSACTION_SIZE_LIMIT = 503,        /* Int bytes; default for tr 503 */
  FDB_DB_OPTION_TRANSACTION_CAUSAL_READ_RISKY = 504, /* no parameter; default for tr 20 */
  FDB_DB_OPTION_TRANSACTION_INCLUDE_PORT_IN_ADDRESS = 505, /* no parameter; default for tr 23 */
  FDB_DB_OPTION_TRANSACTION_AUTOMATIC_IDEMPOTENCY = 506,   /* no parameter; default for tr 505 */
  FDB_DB_OPTION_TRANSACTION_BYPASS_UNREADABLE = 700, /* no parameter; default for tr 1100 */
  FDB_DB_OPTION_TRANSACTION_USED_DURING_COMMIT_PROTECTION_DISABLE = 701, /* default for tr 701 */
  FDB_DB_OPTION_TRANSACTION_REPORT_CONFLICTING_KEYS = 702, /* no parameter; default for tr 712 */
  FDB_DB_OPTION_USE_CONFIG_DATABASE = 800,           /* no parameter */
  FDB_DB_OPTION_TEST_CAUSAL_READ_RISKY = 900         /* Int: percent */
} FDBDatabaseOption;

/* Options for fdb_transaction_set_option. */
typedef enum {
  FDB_TR_OPTION_CAUSAL_WRITE_RISKY = 10,             /* no parameter */
  FDB_TR_OPTION_CAUSAL_READ_RISKY = 20,              /* no parameter */
  FDB_TR_OPTION_CAUSAL_READ_DISABLE = 21,            /* no parameter */
  FDB_TR_OPTION_INCLUDE_PORT_IN_ADDRESS = 23,        /* no parameter; always on at 630+ */
  FDB_TR_OPTION_NEXT_WRITE_NO_WRITE_CONFLICT_RANGE = 30, /* no parameter */
  FDB_TR_OPTION_COMMIT_ON_FIRST_PROXY = 40,          /* no parameter; hidden */
  FDB_TR_OPTION_CHECK_WRITES_ENABLE = 50,            /* no parameter; hidden */
  FDB_TR_OPTION_READ_YOUR_WRITES_DISABLE = 51,       /* no parameter; before any read or write */
  FDB_TR_OPTION_READ_AHEAD_DISABLE = 52,             /* no parameter; deprecated */
  FDB_TR_OPTION_DURABILITY_DATACENTER = 110,         /* no parameter */
  FDB_TR_OPTION_DURABILITY_RISKY = 120,              /* no parameter */
  FDB_TR_OPTION_DURABILITY_DEV_NULL_IS_WEB_SCALE = 130, /* no parameter; deprecated */
  FDB_TR_OPTION_PRIORITY_SYSTEM_IMMEDIATE = 200,     /* no parameter */
  FDB_TR_OPTION_PRIORITY_BATCH = 201,                /* no parameter */
  FDB_TR_OPTION_INITIALIZE_NEW_DATABASE = 300,       /* no parameter */
  FDB_TR_OPTION_ACCESS_SYSTEM_KEYS = 301,            /* no parameter: read/write \xff keys */
  FDB_TR_OPTION_READ_SYSTEM_KEYS = 302,              /* no parameter: read \xff keys */
  FDB_TR_OPTION_RAW_ACCESS = 303,                    /* no parameter */
  FDB_TR_OPTION_BYPASS_STORAGE_QUOTA = 304,          /* no parameter */
  FDB_TR_OPTION_DEBUG_DUMP = 400,                    /* no parameter; hidden */
  FDB_TR_OPTION_DEBUG_RETRY_LOGGING = 401,           /* String: transaction name */
  FDB_TR_OPTION_TRANSACTION_LOGGING_ENABLE = 402,    /* String; deprecated */
  FDB_TR_OPTION_DEBUG_TRANSACTION_IDENTIFIER = 403,  /* String: id for tracing */
  FDB_TR_OPTION_LOG_TRANSACTION = 404,               /* no parameter */
  FDB_TR_OPTION_TRANSACTION_LOGGING_MAX_FIELD_LENGTH = 405, /* Int */
  FDB_TR_OPTION_SERVER_REQUEST_TRACING = 406,        /* no parameter */
  FDB_TR_OPTION_TIMEOUT = 500,                       /* Int ms in [0, INT_MAX]; 0 = none */
  FDB_TR_OPTION_RETRY_LIMIT = 501,                   /* Int in [-1, INT_MAX]; -1 = none */
  FDB_TR_OPTION_MAX_RETRY_DELAY = 502,               /* Int ms in [0, INT_MAX] */
  FDB_TR_OPTION_SIZE_LIMIT = 503,                    /* Int bytes in [32, 10000000] */
  FDB_TR_OPTION_IDEMPOTENCY_ID = 504,                /* String; hidden */
  FDB_TR_OPTION_AUTOMATIC_IDEMPOTENCY = 505,         /* no parameter */
  FDB_TR_OPTION_READ_SERVER_SIDE_CACHE_ENABLE = 507, /* no parameter */
  FDB_TR_OPTION_READ_SERVER_SIDE_CACHE_DISABLE = 508, /* no parameter */
  FDB_TR_OPTION_READ_PRIORITY_NORMAL = 509,          /* no parameter */
  FDB_TR_OPTION_READ_PRIORITY_LOW = 510,             /* no parameter */
  FDB_TR_OPTION_READ_PRIORITY_HIGH = 511,            /* no parameter */
  FDB_TR_OPTION_SNAPSHOT_RYW_ENABLE = 600,           /* no parameter */
  FDB_TR_OPTION_SNAPSHOT_RYW_DISABLE = 601,          /* no parameter */
  FDB_TR_OPTION_LOCK_AWARE = 700,                    /* no parameter */
  FDB_TR_OPTION_USED_DURING_COMMIT_PROTECTION_DISABLE = 701, /* no parameter */
  FDB_TR_OPTION_READ_LOCK_AWARE = 702,               /* no parameter */
  FDB_TR_OPTION_FIRST_IN_BATCH = 710,                /* no parameter; hidden */
  FDB_TR_OPTION_USE_PROVISIONAL_PROXIES = 711,       /* no parameter */
  FDB_TR_OPTION_REPORT_CONFLICTING_KEYS = 712,       /* no parameter */
  FDB_TR_OPTION_SPECIAL_KEY_SPACE_RELAXED = 713,     /* no parameter */
  FDB_TR_OPTION_SPECIAL_KEY_SPACE_ENABLE_WRITES = 714, /* no parameter */
  FDB_TR_OPTION_TAG = 800,                           /* String: throttling tag, at most 5 */
  FDB_TR_OPTION_AUTO_THROTTLE_TAG = 801,             /* String: throttling tag, at most 5 */
  FDB_TR_OPTION_SPAN_PARENT = 900,                   /* Bytes: parent span id */
  FDB_TR_OPTION_EXPENSIVE_CLEAR_COST_ESTIMATION_ENABLE = 1000, /* no parameter */
  FDB_TR_OPTION_BYPASS_UNREADABLE = 1100,            /* no parameter */
  FDB_TR_OPTION_USE_GRV_CACHE = 1101,                /* no parameter */
  FDB_TR_OPTION_SKIP_GRV_CACHE = 1102,               /* no parameter; hidden */
  FDB_TR_OPTION_AUTHORIZATION_TOKEN = 2000           /* String: token */
} FDBTransactionOption;

/* How eagerly fdb_transaction_get_range fetches. The negative values keep the
 * type signed; the Go bindings pass (their mode - 1). */
typedef enum {
  FDB_STREAMING_MODE_WANT_ALL = -2, /* the caller wants the whole range, fast */
  FDB_STREAMING_MODE_ITERATOR = -1, /* batches grow with the iteration number */
  FDB_STREAMING_MODE_EXACT = 0,     /* exactly the row limit in one batch */
  FDB_STREAMING_MODE_SMALL = 1,
  FDB_STREAMING_MODE_MEDIUM = 2,
  FDB_STREAMING_MODE_LARGE = 3,
  FDB_STREAMING_MODE_SERIAL = 4     /* large batches for one reader's bandwidth */
} FDBStreamingMode;

/* Atomic operations for fdb_transaction_atomic_op. AND/OR/XOR are the older
 * names of BIT_AND/BIT_OR/BIT_XOR. */
typedef enum {
  FDB_MUTATION_TYPE_ADD = 2,             /* little-endian add, wraps */
  FDB_MUTATION_TYPE_AND = 6,             /* old name of BIT_AND */
  FDB_MUTATION_TYPE_BIT_AND = 6,
  FDB_MUTATION_TYPE_OR = 7,              /* old name of BIT_OR */
  FDB_MUTATION_TYPE_BIT_OR = 7,
  FDB_MUTATION_TYPE_XOR = 8,             /* old name of BIT_XOR */
  FDB_MUTATION_TYPE_BIT_XOR = 8,
  FDB_MUTATION_TYPE_APPEND_IF_FITS = 9,  /* append unless over the value limit */
  FDB_MUTATION_TYPE_MAX = 12,            /* little-endian unsigned max */
  FDB_MUTATION_TYPE_MIN = 13,            /* little-endian unsigned min */
  FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_KEY = 14,   /* stamp the key (4-byte LE offset suffix) */
  FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_VALUE = 15, /* stamp the value (4-byte LE offset suffix) */
  FDB_MUTATION_TYPE_BYTE_MIN = 16,       /* lexicographic min */
  FDB_MUTATION_TYPE_BYTE_MAX = 17,       /* lexicographic max */
  FDB_MUTATION_TYPE_COMPARE_AND_CLEAR = 20 /* clear if equal to the operand */
} FDBMutationType;

/* Kinds of range for fdb_transaction_add_conflict_range. */
typedef enum {
  FDB_CONFLICT_RANGE_TYPE_READ = 0,
  FDB_CONFLICT_RANGE_TYPE_WRITE = 1
} FDBConflictRangeType;

/* Error classes for fdb_error_predicate. */
typedef enum {
  FDB_ERROR_PREDICATE_RETRYABLE = 50000,               /* worth retrying */
  FDB_ERROR_PREDICATE_MAYBE_COMMITTED = 50001,         /* may have committed */
  FDB_ERROR_PREDICATE_RETRYABLE_NOT_COMMITTED = 50002  /* retryable and surely not committed */
} FDBErrorPredicate;

#endif /* FDB_C_OPTIONS_G_H */
