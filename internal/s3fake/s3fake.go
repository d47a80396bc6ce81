// Package s3fake runs an in-process S3 for tests: gofakes3 (MIT) over
// memory, behind a handler that refuses one access key ID as S3 refuses
// a key without the bucket's permissions.
package s3fake

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// DeniedKey is the access key ID the fake answers with 403
// AccessDenied, S3's answer to a key the bucket's policy refuses.
const DeniedKey = "AKIDDENIED"

// Start runs an S3 holding the named (empty) buckets until t ends and
// returns its endpoint's URL, for path-style requests.
func Start(t testing.TB, buckets ...string) string {
	t.Helper()
	backend := s3mem.New()
	for _, b := range buckets {
		if err := backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	fake := gofakes3.New(backend).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), "Credential="+DeniedKey+"/") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
