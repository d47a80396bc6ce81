// errors.cpp: the message of every FoundationDB error code, and the error
// predicates.
//
// The codes and message strings are FoundationDB's (flow's error table):
// bindings and users compare them, so they are data, reproduced exactly. The
// table is a superset of 7.3's (it also knows a few codes newer releases
// added); the predicates follow 7.3.
#include "errors.h"

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace fdblite {
namespace {

struct CodeMessage {
  int code;
  const char* message;
};

// Sorted by code (checked at compile time below) for binary search.
constexpr CodeMessage kMessages[] = {
    // 0-1: success and stream end.
    {0, "Success"},
    {1, "End of stream"},
    // 1xxx: ordinary failures.
    {1000, "Operation failed"},
    {1001, "Shard is not available from this server"},
    {1002, "Operation result no longer necessary"},
    {1003, "Cache server is not warm for this range"},
    {1004, "Operation timed out"},
    {1005, "Conflict occurred while changing coordination information"},
    {1006, "All alternatives failed"},
    {1007, "Transaction is too old to perform reads or be committed"},
    {1008, "Not enough physical servers available"},
    {1009, "Request for future version"},
    {1010, "Conflicting attempts to change data distribution"},
    {1011, "TLog stopped"},
    {1012, "Server request queue is full"},
    {1020, "Transaction not committed due to conflict with another transaction"},
    {1021, "Transaction may or may not have committed"},
    {1022, "Idempotency id for transaction may have expired, so the commit status of the transaction cannot be "
           "determined"},
    {1025, "Operation aborted because the transaction was cancelled"},
    {1026, "Network connection failed"},
    {1027, "Coordination servers have changed"},
    {1028, "New coordination servers did not respond in a timely way"},
    {1029, "Watch cancelled because storage server watch limit exceeded"},
    {1030, "Request may or may not have been delivered"},
    {1031, "Operation aborted because the transaction timed out"},
    {1032, "Too many watches currently set"},
    {1033, "Locality information not available"},
    {1034, "Watches cannot be set if read your writes is disabled"},
    {1035, "Default error for an ErrorOr object"},
    {1036, "Read or wrote an unreadable key"},
    {1037, "Storage process does not have recent mutations"},
    {1038, "Database is locked"},
    {1039, "The protocol version of the cluster has changed"},
    {1040, "External client has already been loaded"},
    {1041, "DNS lookup failed"},
    {1042, "CommitProxy commit memory limit exceeded"},
    {1043, "Operation no longer supported due to shutdown"},
    {1044, "Failed to deserialize an object"},
    {1048, "No peer references for connection"},
    {1049, "Connection closed after idle timeout"},
    {1050, "The disk queue adpater reset"},
    {1051, "Batch GRV request rate limit exceeded"},
    {1052, "Data distribution components cancelled"},
    {1053, "Data distributor not found"},
    {1054, "Connection file mismatch"},
    {1055, "The requested changes have been compacted away"},
    {1056, "Local configuration file has changed. Restart and apply these changes"},
    {1057, "Failed to reach quorum from configuration database nodes. Retry sending these requests"},
    {1058, "Format version not supported"},
    {1059, "Change feed not found"},
    {1060, "Change feed not registered"},
    {1061, "Conflicting attempts to assign blob granules"},
    {1062, "Change feed was cancelled"},
    {1063, "Error loading a blob file during granule materialization"},
    {1064, "Read version is older than blob granule history supports"},
    {1065, "This blob manager has been replaced."},
    {1066, "Tried to read a version older than what has been popped from the change feed"},
    {1067, "The remote key-value store is cancelled"},
    {1068, "Page header does not match location on disk"},
    {1069, "Page header checksum failed"},
    {1070, "Page header version is not supported"},
    {1071, "Page encoding type is not supported or not valid"},
    {1072, "Page content decoding failed"},
    {1073, "Page content decoding failed"},
    {1074, "Encryption key not found"},
    {1075, "Data move was cancelled"},
    {1076, "Dest team was not found for data move"},
    {1077, "Blob worker cannot take on more granule assignments"},
    {1078, "GetReadVersion proxy memory limit exceeded"},
    {1079, "BlobGranule request failed"},
    {1080, "Too many feed streams to a single storage server"},
    {1081, "Storage engine was never successfully initialized."},
    {1082, "Storage engine type is not recognized."},
    {1083, "A duplicate snapshot request has been sent, the old request is discarded."},
    {1084, "DataDistribution configuration changed."},
    // 11xx: futures and promises.
    {1100, "Broken promise"},
    {1101, "Asynchronous operation cancelled"},
    {1102, "Future has been released"},
    {1103, "Connection object leaked"},
    {1104, "Never reply to the request"},
    {1105, "Retry operation"},
    // 12xx: cluster roles and recovery.
    {1200, "Recruitment of a server failed"},
    {1201, "Attempt to move keys to a storage server that was removed"},
    {1202, "Normal worker shut down"},
    {1203, "Cluster recovery failed"},
    {1204, "Master hit maximum number of versions in flight"},
    {1205, "Cluster recovery terminating because a TLog failed"},
    {1206, "Recovery of a worker process failed"},
    {1207, "Reboot of server process requested"},
    {1208, "Reboot of server process requested, with deletion of state"},
    {1209, "Master terminating because a CommitProxy failed"},
    {1210, "Cluster recovery terminating because a Resolver failed"},
    {1211, "Server is under too much load and cannot respond"},
    {1212, "Cluster recovery terminating because a backup worker failed"},
    {1213, "Transaction tag is being throttled"},
    {1214, "Cluster recovery terminating because a GRVProxy failed"},
    {1215, "The data distribution tracker has been cancelled"},
    {1216, "Process has failed to make sufficient progress"},
    {1217, "Attempted to join cluster with a different cluster ID"},
    {1218, "Restart cluster controller process"},
    {1219, "Need to reboot the storage engine"},
    {1220, "Current software does not support database format"},
    {1221, "Validate storage consistency operation failed"},
    {1222, "Exceeded the max number of allowed concurrent audit storage requests"},
    {1223, "Exceeded maximum proxy tag throttling duration"},
    {1224, "Exceeded maximum time allowed to read or write."},
    {1225, "Exceeded the maximum storage quota allocated to the tenant."},
    {1226, "Found data corruption"},
    {1227, "Cluster recovery terminating because master has failed"},
    {1228, "Test failed"},
    {1229, "Need background datamove cleanup"},
    {1230, "Persist new audit metadata error"},
    {1231, "Failed to cancel an audit"},
    {1232, "Audit has been cancelled"},
    {1233, "Found location metadata corruption"},
    {1234, "Audit task is scheduled by an outdated DD"},
    {1235, "Transaction throttled due to hot shard"},
    // 15xx: platform, files, HTTP.
    {1500, "Platform error"},
    {1501, "Large block allocation failed"},
    {1502, "QueryPerformanceCounter error"},
    {1503, "Null allocator was used to allocate memory"},
    {1510, "Disk i/o operation failed"},
    {1511, "File not found"},
    {1512, "Unable to bind to network"},
    {1513, "File could not be read"},
    {1514, "File could not be written"},
    {1515, "No cluster file found in current directory or default location"},
    {1516, "File too large to be read"},
    {1517, "Non sequential file operation not allowed"},
    {1518, "HTTP response was badly formed"},
    {1519, "HTTP request not accepted"},
    {1520, "A data checksum failed"},
    {1521, "A disk IO operation failed to complete in a timely manner"},
    {1522, "A structurally corrupt data file was detected"},
    {1523, "HTTP response code not received or indicated failure"},
    {1524, "HTTP request failed due to bad credentials"},
    {1525, "HTTP response contained an unexpected X-Request-ID header"},
    {1526, "Invalid REST URI"},
    {1527, "Invalid RESTClient knob"},
    {1528, "ConnectKey not found in connection pool"},
    {1529, "Unable to lock the file"},
    {1530, "Unsupported REST protocol"},
    {1531, "Malformed REST response"},
    {1532, "Max BaseCipher length violation"},
    // 20xx: illegal client calls.
    {2000, "Invalid API call"},
    {2002, "Commit with incomplete read"},
    {2003, "Invalid test specification"},
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
    {2014, "Attribute not found"},
    {2015, "Future not ready"},
    {2016, "Future not an error"},
    {2017, "Operation issued while a commit was outstanding"},
    {2018, "Unrecognized atomic mutation type"},
    {2019, "Attribute too large for type int"},
    {2020, "Transaction does not have a valid commit version"},
    {2021, "Transaction is read-only and therefore does not have a commit version"},
    {2022, "Environment variable network option could not be set"},
    {2023, "Attempted to commit a transaction specified as read-only"},
    {2024, "Invalid cache eviction policy, only random and lru are supported"},
    {2025, "Network can only be started once"},
    {2026, "Detected a deadlock in a callback called from the network thread"},
    {2027, "Invalid configuration database range read"},
    {2028, "Invalid configuration database key provided"},
    {2029, "Invalid configuration path"},
    {2030, "The index in K[] or V[] is not a valid number or out of range"},
    {2031, "A mapped key is not set in database"},
    {2032, "\"{...}\" must be the last element of the mapper tuple"},
    {2033, "One of the mapped range queries is too large"},
    {2034, "Found a mapped key that is not served in the same SS"},
    {2035, "Found a mapped range that is not served in the same SS"},
    {2036, "Blob Granule Read Transactions must be specified as ryw-disabled"},
    {2037, "Blob Granule Read was not materialized"},
    {2038, "getMappedRange does not support continuation for now"},
    {2039, "getMappedRange tries to read data that were previously written in the transaction"},
    {2040, "Checkpoint not found"},
    {2041, "The key cannot be parsed as a tuple"},
    {2042, "The value cannot be parsed as a tuple"},
    {2043, "The mapper cannot be parsed as a tuple"},
    {2044, "Invalid checkpoint format"},
    {2045, "Invalid quota value. Note that reserved_throughput cannot exceed total_throughput"},
    {2046, "Failed to create a checkpoint"},
    {2047, "Failed to restore a checkpoint"},
    {2048, "Failed to dump shard metadata for a checkpoint to a sst file"},
    {2049, "Failed to parse address"},
    // 21xx: limits, connection strings, special keys, tenants.
    {2100, "Incompatible protocol version"},
    {2101, "Transaction exceeds byte limit"},
    {2102, "Key length exceeds limit"},
    {2103, "Value length exceeds limit"},
    {2104, "Connection string invalid"},
    {2105, "Local address in use"},
    {2106, "Invalid local address"},
    {2107, "TLS error"},
    {2108, "Operation is not supported"},
    {2109, "Too many tags set on transaction"},
    {2110, "Tag set on transaction is too long"},
    {2111, "Too many tag throttles have been created"},
    {2112, "Special key space range read crosses modules. Refer to the `special_key_space_relaxed' transaction "
           "option for more details."},
    {2113, "Special key space range read does not intersect a module. Refer to the `special_key_space_relaxed' "
           "transaction option for more details."},
    {2114, "Special Key space is not allowed to write by default. Refer to the "
           "`special_key_space_enable_writes` transaction option for more details."},
    {2115, "Special key space key or keyrange in set or clear does not intersect a module"},
    {2116, "Special key space clear crosses modules"},
    {2117, "Api call through special keys failed. For more information, call get on special key "
           "0xff0xff/error_message to get a json string of the error message."},
    {2118, "Invalid client library metadata."},
    {2119, "Client library with same identifier already exists on the cluster."},
    {2120, "Client library for the given identifier not found."},
    {2121, "Client library exists, but is not available for download."},
    {2122, "Invalid client library binary."},
    {2123, "No external client library provided."},
    {2124, "All external clients have failed."},
    {2125, "None of the available clients match the protocol version of the cluster."},
    {2130, "Tenant name must be specified to access data in the cluster"},
    {2131, "Tenant does not exist"},
    {2132, "A tenant with the given name already exists"},
    {2133, "Cannot delete a non-empty tenant"},
    {2134, "Tenant name cannot begin with \\xff"},
    {2135, "The database already has keys stored at the prefix allocated for the tenant"},
    {2136, "Tenants have been disabled in the cluster"},
    {2138, "Illegal tenant access"},
    {2139, "Tenant group name cannot begin with \\xff"},
    {2140, "Tenant configuration is invalid"},
    {2141, "Cluster does not have capacity to perform the specified operation"},
    {2142, "The tenant was removed"},
    {2143, "Operation cannot be applied to tenant in its current state"},
    {2144, "Tenant is locked"},
    {2160, "Data cluster name cannot begin with \\xff"},
    {2161, "Metacluster operation performed on non-metacluster"},
    {2162, "A data cluster with the given name already exists"},
    {2163, "Data cluster does not exist"},
    {2164, "Cluster must be empty"},
    {2165, "Data cluster is already registered with a metacluster"},
    {2166, "Metacluster does not have capacity to create new tenants"},
    {2167, "Standard transactions cannot be run against the management cluster"},
    {2168, "The tenant creation did not complete in a timely manner and has permanently failed"},
    {2169, "The cluster is being removed from the metacluster"},
    {2170, "The cluster is being restored to the metacluster"},
    {2171, "The data cluster being restored has no record of its metacluster"},
    {2172, "The cluster does not have the expected name or is associated with a different metacluster"},
    {2173, "Another restore is running for the same data cluster"},
    {2174, "Metacluster configuration is invalid"},
    {2175, "Client is not compatible with the metacluster"},
    // 22xx: bindings and layers.
    {2200, "API version is not set"},
    {2201, "API version may be set only once"},
    {2202, "API version not valid"},
    {2203, "API version not supported"},
    {2204, "Failed to load a required FDB API function."},
    {2210, "EXACT streaming mode requires limits, but none were given"},
    {2250, "Unrecognized data type in packed tuple"},
    {2251, "Tuple does not have element at specified index"},
    {2252, "Cannot unpack key that is not in subspace"},
    {2253, "Cannot specify a prefix unless manual prefixes are enabled"},
    {2254, "Cannot specify a prefix in a partition"},
    {2255, "Root directory cannot be opened"},
    {2256, "Directory already exists"},
    {2257, "Directory does not exist"},
    {2258, "Directory's parent does not exist"},
    {2259, "Directory has already been created with a different layer string"},
    {2260, "Invalid directory layer metadata"},
    {2261, "Directory cannot be moved between partitions"},
    {2262, "Directory partition cannot be used as subspace"},
    {2263, "Directory layer was created with an incompatible version"},
    {2264, "Database has keys stored at the prefix chosen by the automatic prefix allocator"},
    {2265, "Directory layer already has a conflicting prefix"},
    {2266, "Target directory is invalid"},
    {2267, "Root directory cannot be modified"},
    {2268, "UUID is not sixteen bytes"},
    {2269, "Versionstamp is not exactly twelve bytes"},
    // 23xx-24xx: backup and restore.
    {2300, "Backup error"},
    {2301, "Restore error"},
    {2311, "Backup duplicate request"},
    {2312, "Backup unneeded request"},
    {2313, "Backup file block size too small"},
    {2314, "Backup Container URL invalid"},
    {2315, "Backup Container info invalid"},
    {2316, "Cannot expire requested data from backup without violating minimum restorability"},
    {2317, "Cannot find authentication details (such as a password or secret key) for the specified Backup "
           "Container URL"},
    {2318, "Cannot read or parse one or more sources of authentication information for Backup Container URLs"},
    {2319, "Backup does not exist"},
    {2320, "Backup before 6.3 cannot be filtered with key ranges"},
    {2321, "Backup key ranges doesn't overlap with key ranges filter"},
    {2361, "Invalid restore version"},
    {2362, "Corrupted backup data"},
    {2363, "Missing backup data"},
    {2364, "Restore duplicate request"},
    {2365, "Restore tag does not exist"},
    {2366, "Unknown backup/restore file type"},
    {2367, "Unsupported backup file version"},
    {2368, "Unexpected number of bytes read"},
    {2369, "Backup file has unexpected padding bytes"},
    {2370, "Attempted to restore into a non-empty destination database"},
    {2371, "Attempted to restore using a UID that had been used for an aborted restore"},
    {2381, "Invalid task version"},
    {2382, "Task execution stopped due to timeout, abort, or completion by another worker"},
    {2383, "The provided encryption key file has invalid contents"},
    {2384, "Missing mutation logs"},
    {2385, "Corrupted mutation logs"},
    {2386, "Invalid manifest URL"},
    {2387, "Corrupted manifest"},
    {2388, "Missing manifest"},
    {2389, "Blob migrator is replaced"},
    {2400, "Expected key is missing"},
    {2401, "JSON string was malformed"},
    {2402, "JSON string did not terminate where expected"},
    // 25xx: disk snapshots.
    {2500, "Failed to disable tlog pops"},
    {2501, "Failed to snapshot storage nodes"},
    {2502, "Failed to snapshot TLog nodes"},
    {2503, "Failed to snapshot coordinator nodes"},
    {2504, "Failed to enable tlog pops"},
    {2505, "Snapshot create binary path not whitelisted"},
    {2506, "Unsupported when the cluster is not fully recovered"},
    {2507, "Unsupported when log anti quorum is configured"},
    {2508, "Cluster recovery during snapshot operation not supported"},
    {2509, "The given uid string is not a 32-length hex string"},
    // 27xx: encryption.
    {2700, "Encryption operation error"},
    {2701, "Encryption header metadata mismatch"},
    {2702, "Expected encryption key is missing"},
    {2703, "Expected encryption key TTL has expired"},
    {2704, "Encryption header authentication token mismatch"},
    {2705, "Attempt to update encryption cipher key"},
    {2706, "Invalid encryption cipher details"},
    {2707, "Encryption keys fetch from external KMS failed"},
    {2708, "Invalid encryption/kms configuration: discovery-url, validation-token, endpoint etc."},
    {2709, "Encryption not supported"},
    {2710, "Encryption mode mismatch with configuration"},
    {2711, "Encryption key-check-value mismatch"},
    {2712, "Max BaseCipher buffer length violation"},
    // 4xxx: internal errors.
    {4000, "An unknown error occurred"},
    {4100, "An internal error occurred"},
    {4200, "Not implemented yet"},
    // 6xxx: authorization.
    {6000, "Client tried to access unauthorized data"},
    {6001, "A untrusted client tried to send a message to a private endpoint"},
    {6002, "Digital signature operation error"},
    {6003, "Failed to verify authorization token"},
    {6004, "Failed to decode public/private key"},
    {6005, "Failed to encode public/private key"},
};

constexpr bool StrictlyIncreasing(const CodeMessage* table, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    if (table[i - 1].code >= table[i].code) return false;
  }
  return true;
}
static_assert(StrictlyIncreasing(kMessages, std::size(kMessages)),
              "kMessages must be sorted by code, without duplicates");

// FoundationDB answers "UNKNOWN_ERROR" for an unlisted code in this range and
// treats anything outside it as unknown_error (4000).
constexpr int kMaxErrorCode = 30000;

const char* Lookup(int code) noexcept {
  const CodeMessage* end = kMessages + std::size(kMessages);
  const CodeMessage* it = std::lower_bound(
      kMessages, end, code,
      [](const CodeMessage& entry, int c) { return entry.code < c; });
  if (it == end || it->code != code) return nullptr;
  return it->message;
}

bool IsMaybeCommitted(int code) noexcept {
  return code == kCommitUnknownResult || code == 1039;  // cluster_version_changed
}

bool IsRetryableNotCommitted(int code) noexcept {
  switch (code) {
    case kNotCommitted:
    case kTransactionTooOld:
    case kFutureVersion:
    case kDatabaseLocked:
    case kGrvProxyMemoryLimitExceeded:
    case kCommitProxyMemoryLimitExceeded:
    case kBatchTransactionThrottled:
    case kProcessBehind:
    case kTagThrottled:
    case 1223:  // proxy_tag_throttled (7.3; newer releases differ)
      return true;
    default:
      return false;
  }
}

}  // namespace

const char* ErrorMessage(int code) noexcept {
  if (code < 0 || code > kMaxErrorCode) return Lookup(kUnknownError);
  const char* message = Lookup(code);
  return message != nullptr ? message : "UNKNOWN_ERROR";
}

bool MatchesPredicate(int predicate, int code) noexcept {
  switch (predicate) {
    case kPredicateRetryable:
      return IsMaybeCommitted(code) || IsRetryableNotCommitted(code);
    case kPredicateMaybeCommitted:
      return IsMaybeCommitted(code);
    case kPredicateRetryableNotCommitted:
      return IsRetryableNotCommitted(code);
    default:
      return false;
  }
}

}  // namespace fdblite
