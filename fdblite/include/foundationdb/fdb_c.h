/*
 * fdb_c.h: the public C API of the FoundationDB 7.3 client, as implemented by
 * fdblite (an in-process, single-library stand-in for libfdb_c.so).
 *
 * Programs written against FoundationDB's own fdb_c.h build unchanged against
 * this header: every function, type, layout, macro and enumerator keeps the
 * name and value FoundationDB gives it. Define FDB_API_VERSION (at most
 * FDB_LATEST_API_VERSION) before including it.
 *
 * Layout notes (load-bearing for the Go bindings, which stride through result
 * arrays with fixed offsets): FDBKey, FDBKeyValue, FDBKeyRange,
 * FDBGranuleSummary and the blob-granule description structs are packed to
 * 4-byte alignment, so on LP64 FDBKey is 12 bytes and FDBKeyValue 24 bytes
 * (value pointer at offset 12).
 */
#ifndef FDB_C_H
#define FDB_C_H
#pragma once

/* The newest API version this header (and fdblite) understands. */
#ifndef FDB_LATEST_API_VERSION
#define FDB_LATEST_API_VERSION 730
#endif
#ifndef FDB_LATEST_BINDINGS_API_VERSION
#define FDB_LATEST_BINDINGS_API_VERSION 730
#endif

#if defined(FDB_USE_LATEST_API_VERSION)
#define FDB_API_VERSION FDB_LATEST_API_VERSION
#elif defined(FDB_USE_LATEST_BINDINGS_API_VERSION)
#define FDB_API_VERSION FDB_LATEST_BINDINGS_API_VERSION
#endif

#if !defined(FDB_API_VERSION)
#error Define FDB_API_VERSION before including fdb_c.h (the newest supported version is FDB_LATEST_API_VERSION)
#elif FDB_API_VERSION < 13
#error This FDB_API_VERSION is too old to be supported (the oldest is 13)
#elif FDB_API_VERSION > FDB_LATEST_API_VERSION
#error This FDB_API_VERSION is newer than this header supports
#endif

/*
 * Every fdb_* function is exported from the shared library even when it is
 * built with -fvisibility=hidden.
 */
#ifndef DLLEXPORT
#if defined(__GNUC__) || defined(__clang__)
#define DLLEXPORT __attribute__((visibility("default")))
#else
#define DLLEXPORT
#endif
#endif

/*
 * FoundationDB marks most functions warn_unused_result. fdblite deliberately
 * leaves the marker empty: the Go bindings discard fdb_future_set_callback's
 * result, and a warning there must not break builds that use -Werror.
 */
#ifndef WARN_UNUSED_RESULT
#define WARN_UNUSED_RESULT
#endif

/*
 * In C++ the functions are declared noexcept: none of them ever throws, and
 * it lets fdblite's own definitions carry noexcept too (C++17 makes the
 * exception specification part of the function type).
 */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define FDB_NOEXCEPT noexcept
#else
#define FDB_NOEXCEPT
#endif

/*
 * Functions that no longer exist at the selected FDB_API_VERSION are defined
 * as macros expanding to this, so calling one fails at compile time instead
 * of silently becoming an implicit declaration.
 */
#define FDB_REMOVED_FUNCTION (fdb_function_removed_at_this_FDB_API_VERSION : )

#include <stdint.h>

#include "fdb_c_options.g.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Handles and scalar types ------------------------------------------ */

/* Opaque handles; only pointers to them cross the API. */
typedef struct FDB_future FDBFuture;
typedef struct FDB_result FDBResult;
typedef struct FDB_database FDBDatabase;
typedef struct FDB_tenant FDBTenant;
typedef struct FDB_transaction FDBTransaction;

/* 0 means success; anything else is a FoundationDB error code. */
typedef int fdb_error_t;
/* 0 is false, anything else true. */
typedef int fdb_bool_t;

/* ---- Errors and API version -------------------------------------------- */

/* The static, never-freed description of `code`. */
DLLEXPORT const char* fdb_get_error(fdb_error_t code) FDB_NOEXCEPT;

/* Whether `code` belongs to the FDBErrorPredicate class `predicate_test`. */
DLLEXPORT fdb_bool_t fdb_error_predicate(int predicate_test, fdb_error_t code) FDB_NOEXCEPT;

/* Selects the runtime API version; call once, before anything else. */
#define /* fdb_error_t */ fdb_select_api_version(v) fdb_select_api_version_impl(v, FDB_API_VERSION)

/* Like fdb_select_api_version, but never asks for more than the library has. */
#define /* fdb_error_t */ fdb_select_api_version_capped(v) \
  fdb_select_api_version_impl(                             \
      v, FDB_API_VERSION < fdb_get_max_api_version() ? FDB_API_VERSION : fdb_get_max_api_version())

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_select_api_version_impl(int runtime_version, int header_version) FDB_NOEXCEPT;

DLLEXPORT int fdb_get_max_api_version(void) FDB_NOEXCEPT;

DLLEXPORT const char* fdb_get_client_version(void) FDB_NOEXCEPT;

/* ---- Network ------------------------------------------------------------ */

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_network_set_option(FDBNetworkOption option,
                                                                uint8_t const* value,
                                                                int value_length) FDB_NOEXCEPT;

#if FDB_API_VERSION >= 14
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_setup_network(void) FDB_NOEXCEPT;
#endif

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_run_network(void) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_stop_network(void) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_add_network_thread_completion_hook(void (*hook)(void*),
                                                                                void* hook_parameter) FDB_NOEXCEPT;

/* ---- Result structures -------------------------------------------------- */

#pragma pack(push, 4)
/* A key: 12 bytes on LP64. */
typedef struct FDB_key {
  const uint8_t* key;
  int key_length;
} FDBKey;

/* A key-value pair: 24 bytes on LP64 (key 0, key_length 8, value 12,
 * value_length 20). */
#if FDB_API_VERSION >= 630
typedef struct FDB_keyvalue {
  const uint8_t* key;
  int key_length;
  const uint8_t* value;
  int value_length;
} FDBKeyValue;
#else
typedef struct FDB_keyvalue {
  const void* key;
  int key_length;
  const void* value;
  int value_length;
} FDBKeyValue;
#endif
#pragma pack(pop)

/* A key selector as it sits inside FDBMappedKeyValue (natural alignment). */
typedef struct FDB_keyselector {
  FDBKey key;
  fdb_bool_t orEqual;
  int offset;
} FDBKeySelector;

/* The secondary range request and its rows inside FDBMappedKeyValue. */
typedef struct FDB_getrangereqandresult {
  FDBKeySelector begin;
  FDBKeySelector end;
  FDBKeyValue* data;
  int m_size, m_capacity;
} FDBGetRangeReqAndResult;

/* One row of fdb_transaction_get_mapped_range: 112 bytes on LP64. */
typedef struct FDB_mappedkeyvalue {
  FDBKey key;
  FDBKey value;
  FDBGetRangeReqAndResult getRange;
  unsigned char buffer[32];
} FDBMappedKeyValue;

#pragma pack(push, 4)
/* A key range [begin_key, end_key): 24 bytes on LP64. */
typedef struct FDB_keyrange {
  const uint8_t* begin_key;
  int begin_key_length;
  const uint8_t* end_key;
  int end_key_length;
} FDBKeyRange;

/* What fdb_transaction_summarize_blob_granules reports per granule. */
typedef struct FDB_granulesummary {
  FDBKeyRange key_range;
  int64_t snapshot_version;
  int64_t snapshot_size;
  int64_t delta_version;
  int64_t delta_size;
} FDBGranuleSummary;
#pragma pack(pop)

/* Caller-supplied file loader for fdb_transaction_read_blob_granules. */
typedef struct FDB_readgranulecontext {
  /* Passed back to every callback. */
  void* userContext;
  /* Starts loading a byte range of a granule file; returns a load id. */
  int64_t (*start_load_f)(const char* filename,
                          int filenameLength,
                          int64_t offset,
                          int64_t length,
                          int64_t fullFileLength,
                          void* context);
  /* The bytes of a started load. */
  uint8_t* (*get_load_f)(int64_t loadId, void* context);
  /* Releases a started load. */
  void (*free_load_f)(int64_t loadId, void* context);
  /* Non-zero: contact the blob workers but skip reading the files. */
  fdb_bool_t debugNoMaterialize;
  /* How many granules to load at once. */
  int granuleParallelism;
} FDBReadBlobGranuleContext;

typedef enum { FDB_BG_MUTATION_TYPE_SET_VALUE = 0, FDB_BG_MUTATION_TYPE_CLEAR_RANGE = 1 } FDBBGMutationType;

#pragma pack(push, 4)
typedef struct FDB_bgtenantprefix {
  fdb_bool_t present;
  FDBKey prefix;
} FDBBGTenantPrefix;

typedef struct FDB_bgencryptionkey {
  int64_t domain_id;
  uint64_t base_key_id;
  uint32_t base_kcv;
  uint64_t random_salt;
  FDBKey base_key;
} FDBBGEncryptionKey;

typedef struct FDB_bgencryptionctx {
  fdb_bool_t present;
  FDBBGEncryptionKey textKey;
  uint32_t textKCV;
  FDBBGEncryptionKey headerKey;
  uint32_t headerKCV;
  FDBKey iv;
} FDBBGEncryptionCtx;

typedef struct FDB_bgfilepointer {
  const uint8_t* filename_ptr;
  int filename_length;
  int64_t file_offset;
  int64_t file_length;
  int64_t full_file_length;
  int64_t file_version;
  FDBBGEncryptionCtx encryption_ctx;
} FDBBGFilePointer;

typedef struct FDB_bgmutation {
  uint8_t type; /* an FDBBGMutationType */
  int64_t version;
  const uint8_t* param1_ptr;
  int param1_length;
  const uint8_t* param2_ptr;
  int param2_length;
} FDBBGMutation;

typedef struct FDB_bgfiledescription {
  FDBKeyRange key_range;
  fdb_bool_t snapshot_present;
  FDBBGFilePointer snapshot_file_pointer;
  int delta_file_count;
  FDBBGFilePointer* delta_files;
  int memory_mutation_count;
  FDBBGMutation* memory_mutations;
  FDBBGTenantPrefix tenant_prefix;
} FDBBGFileDescription;
#pragma pack(pop)

/* ---- Futures ------------------------------------------------------------ */

DLLEXPORT void fdb_future_cancel(FDBFuture* f) FDB_NOEXCEPT;

DLLEXPORT void fdb_future_release_memory(FDBFuture* f) FDB_NOEXCEPT;

DLLEXPORT void fdb_future_destroy(FDBFuture* f) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_block_until_ready(FDBFuture* f) FDB_NOEXCEPT;

DLLEXPORT fdb_bool_t fdb_future_is_ready(FDBFuture* f) FDB_NOEXCEPT;

/* Called once when the future becomes ready (or at once if it already is). */
typedef void (*FDBCallback)(FDBFuture* future, void* callback_parameter);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_set_callback(FDBFuture* f,
                                                                 FDBCallback callback,
                                                                 void* callback_parameter) FDB_NOEXCEPT;

#if FDB_API_VERSION >= 23
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_error(FDBFuture* f) FDB_NOEXCEPT;
#endif

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_bool(FDBFuture* f, fdb_bool_t* out) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_int64(FDBFuture* f, int64_t* out) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_uint64(FDBFuture* f, uint64_t* out) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_double(FDBFuture* f, double* out) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_key(FDBFuture* f, uint8_t const** out_key, int* out_key_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_value(FDBFuture* f,
                                                              fdb_bool_t* out_present,
                                                              uint8_t const** out_value,
                                                              int* out_value_length) FDB_NOEXCEPT;

#if FDB_API_VERSION >= 14
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_keyvalue_array(FDBFuture* f,
                                                                       FDBKeyValue const** out_kv,
                                                                       int* out_count,
                                                                       fdb_bool_t* out_more) FDB_NOEXCEPT;
#endif

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_mappedkeyvalue_array(FDBFuture* f,
                                                                             FDBMappedKeyValue const** out_kv,
                                                                             int* out_count,
                                                                             fdb_bool_t* out_more) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_key_array(FDBFuture* f,
                                                                  FDBKey const** out_key_array,
                                                                  int* out_count) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_string_array(FDBFuture* f,
                                                                     const char*** out_strings,
                                                                     int* out_count) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_keyrange_array(FDBFuture* f,
                                                                       FDBKeyRange const** out_ranges,
                                                                       int* out_count) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_granule_summary_array(FDBFuture* f,
                                                                              FDBGranuleSummary const** out_summaries,
                                                                              int* out_count) FDB_NOEXCEPT;

/* Reads the result of fdb_transaction_read_blob_granules_description. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_readbg_get_descriptions(FDBFuture* f,
                                                                            FDBBGFileDescription** out,
                                                                            int* desc_count) FDB_NOEXCEPT;

/* ---- Synchronous results ------------------------------------------------ */

DLLEXPORT WARN_UNUSED_RESULT FDBResult* fdb_readbg_parse_snapshot_file(const uint8_t* file_data,
                                                                       int file_len,
                                                                       FDBBGTenantPrefix const* tenant_prefix,
                                                                       FDBBGEncryptionCtx const* encryption_ctx) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBResult* fdb_readbg_parse_delta_file(const uint8_t* file_data,
                                                                    int file_len,
                                                                    FDBBGTenantPrefix const* tenant_prefix,
                                                                    FDBBGEncryptionCtx const* encryption_ctx) FDB_NOEXCEPT;

DLLEXPORT void fdb_result_destroy(FDBResult* r) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_result_get_keyvalue_array(FDBResult* r,
                                                                       FDBKeyValue const** out_kv,
                                                                       int* out_count,
                                                                       fdb_bool_t* out_more) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_result_get_bg_mutations_array(FDBResult* r,
                                                                           FDBBGMutation const** out_mutations,
                                                                           int* out_count) FDB_NOEXCEPT;

/* ---- Databases ---------------------------------------------------------- */

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_create_database(const char* cluster_file_path, FDBDatabase** out_database) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_create_database_from_connection_string(const char* connection_string,
                                                                                    FDBDatabase** out_database) FDB_NOEXCEPT;

DLLEXPORT void fdb_database_destroy(FDBDatabase* d) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_database_set_option(FDBDatabase* d,
                                                                 FDBDatabaseOption option,
                                                                 uint8_t const* value,
                                                                 int value_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_database_open_tenant(FDBDatabase* d,
                                                                  uint8_t const* tenant_name,
                                                                  int tenant_name_length,
                                                                  FDBTenant** out_tenant) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_database_create_transaction(FDBDatabase* d,
                                                                         FDBTransaction** out_transaction) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_reboot_worker(FDBDatabase* db,
                                                                   uint8_t const* address,
                                                                   int address_length,
                                                                   fdb_bool_t check,
                                                                   int duration) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_force_recovery_with_data_loss(FDBDatabase* db,
                                                                                   uint8_t const* dcid,
                                                                                   int dcid_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_create_snapshot(FDBDatabase* db,
                                                                     uint8_t const* uid,
                                                                     int uid_length,
                                                                     uint8_t const* snap_command,
                                                                     int snap_command_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT double fdb_database_get_main_thread_busyness(FDBDatabase* db) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_get_server_protocol(FDBDatabase* db, uint64_t expected_version) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_purge_blob_granules(FDBDatabase* db,
                                                                         uint8_t const* begin_key_name,
                                                                         int begin_key_name_length,
                                                                         uint8_t const* end_key_name,
                                                                         int end_key_name_length,
                                                                         int64_t purge_version,
                                                                         fdb_bool_t force) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_wait_purge_granules_complete(FDBDatabase* db,
                                                                                  uint8_t const* purge_key_name,
                                                                                  int purge_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_blobbify_range(FDBDatabase* db,
                                                                    uint8_t const* begin_key_name,
                                                                    int begin_key_name_length,
                                                                    uint8_t const* end_key_name,
                                                                    int end_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_blobbify_range_blocking(FDBDatabase* db,
                                                                             uint8_t const* begin_key_name,
                                                                             int begin_key_name_length,
                                                                             uint8_t const* end_key_name,
                                                                             int end_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_unblobbify_range(FDBDatabase* db,
                                                                      uint8_t const* begin_key_name,
                                                                      int begin_key_name_length,
                                                                      uint8_t const* end_key_name,
                                                                      int end_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_list_blobbified_ranges(FDBDatabase* db,
                                                                            uint8_t const* begin_key_name,
                                                                            int begin_key_name_length,
                                                                            uint8_t const* end_key_name,
                                                                            int end_key_name_length,
                                                                            int rangeLimit) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_verify_blob_range(FDBDatabase* db,
                                                                       uint8_t const* begin_key_name,
                                                                       int begin_key_name_length,
                                                                       uint8_t const* end_key_name,
                                                                       int end_key_name_length,
                                                                       int64_t version) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_flush_blob_range(FDBDatabase* db,
                                                                      uint8_t const* begin_key_name,
                                                                      int begin_key_name_length,
                                                                      uint8_t const* end_key_name,
                                                                      int end_key_name_length,
                                                                      fdb_bool_t compact,
                                                                      int64_t version) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_get_client_status(FDBDatabase* db) FDB_NOEXCEPT;

/* ---- Tenants ------------------------------------------------------------ */

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_tenant_create_transaction(FDBTenant* tenant,
                                                                       FDBTransaction** out_transaction) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_purge_blob_granules(FDBTenant* tenant,
                                                                       uint8_t const* begin_key_name,
                                                                       int begin_key_name_length,
                                                                       uint8_t const* end_key_name,
                                                                       int end_key_name_length,
                                                                       int64_t purge_version,
                                                                       fdb_bool_t force) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_wait_purge_granules_complete(FDBTenant* tenant,
                                                                                uint8_t const* purge_key_name,
                                                                                int purge_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_blobbify_range(FDBTenant* tenant,
                                                                  uint8_t const* begin_key_name,
                                                                  int begin_key_name_length,
                                                                  uint8_t const* end_key_name,
                                                                  int end_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_blobbify_range_blocking(FDBTenant* tenant,
                                                                           uint8_t const* begin_key_name,
                                                                           int begin_key_name_length,
                                                                           uint8_t const* end_key_name,
                                                                           int end_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_unblobbify_range(FDBTenant* tenant,
                                                                    uint8_t const* begin_key_name,
                                                                    int begin_key_name_length,
                                                                    uint8_t const* end_key_name,
                                                                    int end_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_list_blobbified_ranges(FDBTenant* tenant,
                                                                          uint8_t const* begin_key_name,
                                                                          int begin_key_name_length,
                                                                          uint8_t const* end_key_name,
                                                                          int end_key_name_length,
                                                                          int rangeLimit) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_verify_blob_range(FDBTenant* tenant,
                                                                     uint8_t const* begin_key_name,
                                                                     int begin_key_name_length,
                                                                     uint8_t const* end_key_name,
                                                                     int end_key_name_length,
                                                                     int64_t version) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_flush_blob_range(FDBTenant* tenant,
                                                                    uint8_t const* begin_key_name,
                                                                    int begin_key_name_length,
                                                                    uint8_t const* end_key_name,
                                                                    int end_key_name_length,
                                                                    fdb_bool_t compact,
                                                                    int64_t version) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_get_id(FDBTenant* tenant) FDB_NOEXCEPT;

DLLEXPORT void fdb_tenant_destroy(FDBTenant* tenant) FDB_NOEXCEPT;

/* ---- Transactions ------------------------------------------------------- */

DLLEXPORT void fdb_transaction_destroy(FDBTransaction* tr) FDB_NOEXCEPT;

DLLEXPORT void fdb_transaction_cancel(FDBTransaction* tr) FDB_NOEXCEPT;

#if FDB_API_VERSION >= 14
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_transaction_set_option(FDBTransaction* tr,
                                                                    FDBTransactionOption option,
                                                                    uint8_t const* value,
                                                                    int value_length) FDB_NOEXCEPT;
#endif

DLLEXPORT void fdb_transaction_set_read_version(FDBTransaction* tr, int64_t version) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_read_version(FDBTransaction* tr) FDB_NOEXCEPT;

#if FDB_API_VERSION >= 14
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get(FDBTransaction* tr,
                                                            uint8_t const* key_name,
                                                            int key_name_length,
                                                            fdb_bool_t snapshot) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_key(FDBTransaction* tr,
                                                                uint8_t const* key_name,
                                                                int key_name_length,
                                                                fdb_bool_t or_equal,
                                                                int offset,
                                                                fdb_bool_t snapshot) FDB_NOEXCEPT;
#endif

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_addresses_for_key(FDBTransaction* tr,
                                                                              uint8_t const* key_name,
                                                                              int key_name_length) FDB_NOEXCEPT;

#if FDB_API_VERSION >= 14
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_range(FDBTransaction* tr,
                                                                  uint8_t const* begin_key_name,
                                                                  int begin_key_name_length,
                                                                  fdb_bool_t begin_or_equal,
                                                                  int begin_offset,
                                                                  uint8_t const* end_key_name,
                                                                  int end_key_name_length,
                                                                  fdb_bool_t end_or_equal,
                                                                  int end_offset,
                                                                  int limit,
                                                                  int target_bytes,
                                                                  FDBStreamingMode mode,
                                                                  int iteration,
                                                                  fdb_bool_t snapshot,
                                                                  fdb_bool_t reverse) FDB_NOEXCEPT;
#endif

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_mapped_range(FDBTransaction* tr,
                                                                         uint8_t const* begin_key_name,
                                                                         int begin_key_name_length,
                                                                         fdb_bool_t begin_or_equal,
                                                                         int begin_offset,
                                                                         uint8_t const* end_key_name,
                                                                         int end_key_name_length,
                                                                         fdb_bool_t end_or_equal,
                                                                         int end_offset,
                                                                         uint8_t const* mapper_name,
                                                                         int mapper_name_length,
                                                                         int limit,
                                                                         int target_bytes,
                                                                         FDBStreamingMode mode,
                                                                         int iteration,
                                                                         fdb_bool_t snapshot,
                                                                         fdb_bool_t reverse) FDB_NOEXCEPT;

DLLEXPORT void fdb_transaction_set(FDBTransaction* tr,
                                   uint8_t const* key_name,
                                   int key_name_length,
                                   uint8_t const* value,
                                   int value_length) FDB_NOEXCEPT;

DLLEXPORT void fdb_transaction_atomic_op(FDBTransaction* tr,
                                         uint8_t const* key_name,
                                         int key_name_length,
                                         uint8_t const* param,
                                         int param_length,
                                         FDBMutationType operation_type) FDB_NOEXCEPT;

DLLEXPORT void fdb_transaction_clear(FDBTransaction* tr, uint8_t const* key_name, int key_name_length) FDB_NOEXCEPT;

DLLEXPORT void fdb_transaction_clear_range(FDBTransaction* tr,
                                           uint8_t const* begin_key_name,
                                           int begin_key_name_length,
                                           uint8_t const* end_key_name,
                                           int end_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_watch(FDBTransaction* tr,
                                                              uint8_t const* key_name,
                                                              int key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_commit(FDBTransaction* tr) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_transaction_get_committed_version(FDBTransaction* tr,
                                                                               int64_t* out_version) FDB_NOEXCEPT;

/* The next four return futures (not plain numbers) so that they observe every
 * mutation issued on the transaction before the call. */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_tag_throttled_duration(FDBTransaction* tr) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_total_cost(FDBTransaction* tr) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_approximate_size(FDBTransaction* tr) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_versionstamp(FDBTransaction* tr) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_on_error(FDBTransaction* tr, fdb_error_t error) FDB_NOEXCEPT;

DLLEXPORT void fdb_transaction_reset(FDBTransaction* tr) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_transaction_add_conflict_range(FDBTransaction* tr,
                                                                            uint8_t const* begin_key_name,
                                                                            int begin_key_name_length,
                                                                            uint8_t const* end_key_name,
                                                                            int end_key_name_length,
                                                                            FDBConflictRangeType type) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_estimated_range_size_bytes(FDBTransaction* tr,
                                                                                       uint8_t const* begin_key_name,
                                                                                       int begin_key_name_length,
                                                                                       uint8_t const* end_key_name,
                                                                                       int end_key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_range_split_points(FDBTransaction* tr,
                                                                               uint8_t const* begin_key_name,
                                                                               int begin_key_name_length,
                                                                               uint8_t const* end_key_name,
                                                                               int end_key_name_length,
                                                                               int64_t chunk_size) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_blob_granule_ranges(FDBTransaction* tr,
                                                                                uint8_t const* begin_key_name,
                                                                                int begin_key_name_length,
                                                                                uint8_t const* end_key_name,
                                                                                int end_key_name_length,
                                                                                int rangeLimit) FDB_NOEXCEPT;

/* readVersion -2 (latestVersion) means "use the transaction's read version". */
DLLEXPORT WARN_UNUSED_RESULT FDBResult* fdb_transaction_read_blob_granules(FDBTransaction* tr,
                                                                           uint8_t const* begin_key_name,
                                                                           int begin_key_name_length,
                                                                           uint8_t const* end_key_name,
                                                                           int end_key_name_length,
                                                                           int64_t beginVersion,
                                                                           int64_t readVersion,
                                                                           FDBReadBlobGranuleContext granuleContext) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_summarize_blob_granules(FDBTransaction* tr,
                                                                                uint8_t const* begin_key_name,
                                                                                int begin_key_name_length,
                                                                                uint8_t const* end_key_name,
                                                                                int end_key_name_length,
                                                                                int64_t summaryVersion,
                                                                                int rangeLimit) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_read_blob_granules_description(FDBTransaction* tr,
                                                                                       uint8_t const* begin_key_name,
                                                                                       int begin_key_name_length,
                                                                                       uint8_t const* end_key_name,
                                                                                       int end_key_name_length,
                                                                                       int64_t begin_version,
                                                                                       int64_t read_version,
                                                                                       int64_t* read_version_out) FDB_NOEXCEPT;

/* ---- Key selectors ------------------------------------------------------ */

/* Each expands to the (key, key_length, or_equal, offset) argument quadruple
 * that fdb_transaction_get_key and fdb_transaction_get_range take. */
#define FDB_KEYSEL_LAST_LESS_THAN(k, l) k, l, 0, 0
#define FDB_KEYSEL_LAST_LESS_OR_EQUAL(k, l) k, l, 1, 0
#define FDB_KEYSEL_FIRST_GREATER_THAN(k, l) k, l, 1, 1
#define FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(k, l) k, l, 0, 1

/* ---- Functions of older API versions ------------------------------------ */

#if FDB_API_VERSION < 620
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_version(FDBFuture* f, int64_t* out_version) FDB_NOEXCEPT;
#else
#define fdb_future_get_version(f, ov) FDB_REMOVED_FUNCTION
#endif

#if FDB_API_VERSION < 610 || defined(FDB_INCLUDE_LEGACY_TYPES)
typedef struct FDB_cluster FDBCluster;

typedef enum {
  /* Placeholder so the enum is not empty; never a valid option. */
  FDB_CLUSTER_OPTION_DUMMY_DO_NOT_USE = -1
} FDBClusterOption;
#endif

#if FDB_API_VERSION < 610
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_cluster(FDBFuture* f, FDBCluster** out_cluster) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_database(FDBFuture* f, FDBDatabase** out_database) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_create_cluster(const char* cluster_file_path) FDB_NOEXCEPT;

DLLEXPORT void fdb_cluster_destroy(FDBCluster* c) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_cluster_set_option(FDBCluster* c,
                                                                FDBClusterOption option,
                                                                uint8_t const* value,
                                                                int value_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_cluster_create_database(FDBCluster* c,
                                                                    uint8_t const* db_name,
                                                                    int db_name_length) FDB_NOEXCEPT;
#else
#define fdb_future_get_cluster(f, oc) FDB_REMOVED_FUNCTION
#define fdb_future_get_database(f, od) FDB_REMOVED_FUNCTION
#define fdb_create_cluster(cfp) FDB_REMOVED_FUNCTION
#define fdb_cluster_destroy(c) FDB_REMOVED_FUNCTION
#define fdb_cluster_set_option(c, o, v, vl) FDB_REMOVED_FUNCTION
#define fdb_cluster_create_database(c, dn, dnl) FDB_REMOVED_FUNCTION
#endif

#if FDB_API_VERSION < 23
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_error(FDBFuture* f, const char** out_description) FDB_NOEXCEPT;

DLLEXPORT fdb_bool_t fdb_future_is_error(FDBFuture* f) FDB_NOEXCEPT;
#else
#define fdb_future_is_error(x) FDB_REMOVED_FUNCTION
#endif

#if FDB_API_VERSION < 14
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_keyvalue_array(FDBFuture* f,
                                                                       FDBKeyValue const** out_kv,
                                                                       int* out_count) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get(FDBTransaction* tr,
                                                            uint8_t const* key_name,
                                                            int key_name_length) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_key(FDBTransaction* tr,
                                                                uint8_t const* key_name,
                                                                int key_name_length,
                                                                fdb_bool_t or_equal,
                                                                int offset) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_setup_network(const char* local_address) FDB_NOEXCEPT;

DLLEXPORT void fdb_transaction_set_option(FDBTransaction* tr, FDBTransactionOption option) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_range(FDBTransaction* tr,
                                                                  uint8_t const* begin_key_name,
                                                                  int begin_key_name_length,
                                                                  uint8_t const* end_key_name,
                                                                  int end_key_name_length,
                                                                  int limit) FDB_NOEXCEPT;

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_range_selector(FDBTransaction* tr,
                                                                           uint8_t const* begin_key_name,
                                                                           int begin_key_name_length,
                                                                           fdb_bool_t begin_or_equal,
                                                                           int begin_offset,
                                                                           uint8_t const* end_key_name,
                                                                           int end_key_name_length,
                                                                           fdb_bool_t end_or_equal,
                                                                           int end_offset,
                                                                           int limit) FDB_NOEXCEPT;
#else
#define fdb_transaction_get_range_selector(tr, bkn, bknl, boe, bo, ekn, eknl, eoe, eo, lim) FDB_REMOVED_FUNCTION
#endif

#ifdef __cplusplus
}
#endif
#endif /* FDB_C_H */
