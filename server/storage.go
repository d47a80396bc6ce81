package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// storage.go: what the health check says about where the data lives.
// fdblite (the embedded database) reports its storage mode in the special
// key \xff\xff/fdblite/stats; a real FoundationDB cluster has no such key.

// fdbliteStatsKey reads as fdblite's JSON counters, including the storage
// mode: "memory", or "durable" with the data directory and the error that
// stopped its commits, if any.
var fdbliteStatsKey = fdb.Key("\xff\xff/fdblite/stats")

// Storage describes where a server's data lives, as the health check
// reports it.
type Storage struct {
	// Mode is "durable" (an fdblite data directory), "memory" (an
	// in-memory fdblite database, gone when the process exits) or
	// "cluster" (a FoundationDB cluster).
	Mode string `json:"mode"`
	// Dir is the data directory of a durable database.
	Dir string `json:"dir,omitempty"`
	// Error is FoundationDB's error code with which a durable database
	// stopped accepting commits (1510 io_error for a full disk or failing
	// I/O), 0 while it works.
	Error int `json:"error,omitempty"`
	// ErrorDetail says what failed, for the operator.
	ErrorDetail string `json:"error_detail,omitempty"`
}

// String is the storage as the health check's X-Fdyno-Storage header says
// it: "durable; dir=/var/lib/fdyno", "memory" or "cluster".
func (s Storage) String() string {
	if s.Dir != "" {
		return fmt.Sprintf("%s; dir=%s", s.Mode, s.Dir)
	}
	return s.Mode
}

// ReadStorage reports where db keeps its data.
func ReadStorage(db fdb.ReadTransactor) (Storage, error) {
	v, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(fdbliteStatsKey).Get()
	})
	var fe fdb.Error
	if errors.As(err, &fe) && fe.Code == 2113 {
		// special_keys_no_module_found: a real cluster, which has no fdblite
		// stats.
		return Storage{Mode: "cluster"}, nil
	}
	if err != nil {
		return Storage{}, err
	}
	raw, _ := v.([]byte)
	if raw == nil {
		return Storage{Mode: "cluster"}, nil
	}
	var stats struct {
		Mode    string `json:"mode"`
		Durable struct {
			Dir         string `json:"dir"`
			Error       int    `json:"error"`
			ErrorDetail string `json:"error_detail"`
		} `json:"durable"`
	}
	if err := json.Unmarshal(raw, &stats); err != nil {
		return Storage{}, fmt.Errorf("fdblite stats: %w", err)
	}
	return Storage{Mode: stats.Mode, Dir: stats.Durable.Dir, Error: stats.Durable.Error, ErrorDetail: stats.Durable.ErrorDetail}, nil
}

// health answers the health check.
func (s *Server) health(w http.ResponseWriter, host string) {
	w.Header().Set("Content-Type", "text/plain")
	st, err := ReadStorage(s.db)
	if err == nil && st.Error != 0 {
		err = fmt.Errorf("storage failed with error %d: %s", st.Error, st.ErrorDetail)
	}
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "unhealthy: fdyno-server: "+err.Error())
		return
	}
	w.Header().Set("X-Fdyno-Storage", st.String())
	_, _ = io.WriteString(w, "healthy: "+host)
}
