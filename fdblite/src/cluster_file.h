// cluster_file.h: what a cluster-file path or connection string names.
//
// FoundationDB's client reads a cluster file whose content is a connection
// string, `description:ID@address,address...` (description letters, digits
// and underscores; ID letters and digits; each address host:port, with an
// optional `:tls` suffix; `#` starts a comment that runs to the end of the
// line; whitespace is ignored). The connection string, not the file's path,
// identifies the cluster: two copies of one file reach the same database.
// With no path, the client looks for FDB_CLUSTER_FILE, then ./fdb.cluster,
// then /etc/foundationdb/fdb.cluster.
//
// fdblite resolves names the same way, and adds its own forms, accepted as a
// path, as a connection string, or as the content of a cluster file:
//   fdblite-dir:<dir>      a durable database kept in <dir> (durable.h);
//                          relative to the cluster file's directory when
//                          written inside one
//   fdblite-memory:<name>  an in-memory database called <name>
// A path that names no file resolves to no_cluster_file_found (1515); an
// empty file or malformed connection string to connection_string_invalid
// (2104); fdb_create_database keeps that error in the database it returns
// (FDB_database in database.h). With no cluster file anywhere, the name is the in-process default
// database (durable in FDBLITE_DATA_DIR when that variable is set).
#ifndef FDBLITE_CLUSTER_FILE_H_
#define FDBLITE_CLUSTER_FILE_H_

#include <string>
#include <vector>

namespace fdblite {

inline constexpr char kDirPrefix[] = "fdblite-dir:";
inline constexpr char kMemoryPrefix[] = "fdblite-memory:";
// The connection string of the in-process default database.
inline constexpr char kDefaultConnectionString[] = "fdblite:default@127.0.0.1:4500";

// ConnectionString is a parsed `description:ID@addresses`.
struct ConnectionString {
  std::string description;
  std::string id;
  std::vector<std::string> coordinators;  // host:port[:tls]
  // Text is the canonical form: no comments, no whitespace.
  std::string Text() const;
};

// ParseConnectionString parses the content of a cluster file; false if it
// is not a valid connection string.
bool ParseConnectionString(const std::string& content, ConnectionString* out);

// DatabaseName is what a name resolves to.
struct DatabaseName {
  std::string key;         // identifies the database within the process
  std::string alias;       // a second key reaching it (its connection string's), or ""
  std::string dir;         // durable: the data directory; "" in memory
  ConnectionString connection;  // what \xff/coordinators reads
};

// ResolveClusterFile resolves fdb_create_database's path (null or empty:
// the default). 0 or a FoundationDB error code.
int ResolveClusterFile(const char* path, DatabaseName* out);
// ResolveConnectionString resolves fdb_create_database_from_connection_string's
// argument; base_dir anchors a relative fdblite-dir: (the cluster file's
// directory, or "" for the working directory).
int ResolveConnectionString(const std::string& text, const std::string& base_dir,
                            DatabaseName* out);

}  // namespace fdblite

#endif  // FDBLITE_CLUSTER_FILE_H_
