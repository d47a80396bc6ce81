// fdb_api.h: the public header, included the way fdblite's own sources need.
#ifndef FDBLITE_FDB_API_H_
#define FDBLITE_FDB_API_H_

#ifndef FDB_API_VERSION
#define FDB_API_VERSION 730
#endif
#include "foundationdb/fdb_c.h"

#endif  // FDBLITE_FDB_API_H_
