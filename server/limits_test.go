package server

import (
	"crypto/tls"
	"encoding/binary"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// With MaxConcurrentRequests 1, a request in its operation (here, one
// whose body has not all arrived) takes the only slot: the next is
// refused at once with ThrottlingException, and once the first finishes
// the next is served.
func TestMaxConcurrentRequests(t *testing.T) {
	ts := newTestServer(t, Config{MaxConcurrentRequests: 1})
	addr := strings.TrimPrefix(ts.URL, "http://")
	finish := halfSentRequest(t, addr)
	for deadline := time.Now().Add(10 * time.Second); len(ts.inFlight) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first request never took its slot")
		}
	}
	status, typ, msg := ts.post(t, targetPrefix+"ListTables", contentType, strings.NewReader(`{}`))
	if status != 400 || typ != "ThrottlingException" || msg != "Rate of requests exceeds the allowed throughput." {
		t.Errorf("second request: %d %s %q, want 400 ThrottlingException", status, typ, msg)
	}
	if status := finish(); status != 200 {
		t.Errorf("first request: status %d", status)
	}
	if status, typ, _ := ts.post(t, targetPrefix+"ListTables", contentType, strings.NewReader(`{}`)); status != 200 {
		t.Errorf("after the first finished: %d %s, want 200", status, typ)
	}
}

// Headers beyond the bound are refused with 431 before any handler runs.
func TestMaxHeaderBytes(t *testing.T) {
	ts := newTestServer(t, Config{})
	addr, _, _ := ts.serveLoopback(t, ts.Server, Timeouts{}, WithMaxHeaderBytes(1024))
	for _, tc := range []struct {
		pad  int
		want int
	}{{100, 200}, {8 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
		req.Header.Set("X-Pad", strings.Repeat("p", tc.pad))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%d bytes of header: status %d, want %d", tc.pad, resp.StatusCode, tc.want)
		}
	}
}

// Over HTTP/2 the per-connection bound is the SETTINGS_MAX_CONCURRENT_STREAMS
// the server announces in its first SETTINGS frame (RFC 9113 §6.5.2,
// identifier 0x3).
func TestMaxRequestsPerConnection(t *testing.T) {
	for _, tc := range []struct {
		opts []ServeOption
		want uint32
	}{{nil, DefaultMaxRequestsPerConnection}, {[]ServeOption{WithMaxRequestsPerConnection(3)}, 3}} {
		ts := newTestServer(t, Config{})
		url, hc := serveTLS(t, ts, tc.opts...)
		pool := hc.Transport.(*http.Transport).TLSClientConfig.RootCAs
		conn, err := tls.Dial("tcp", strings.TrimPrefix(url, "https://"), &tls.Config{RootCAs: pool, NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
			t.Fatalf("ALPN negotiated %q, want h2", p)
		}
		if _, err := io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00"); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		var hdr [9]byte
		if _, err := io.ReadFull(conn, hdr[:]); err != nil {
			t.Fatal(err)
		}
		length := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
		if hdr[3] != 0x4 || length%6 != 0 || length > 1<<14 {
			t.Fatalf("first frame: type %d length %d, want SETTINGS", hdr[3], length)
		}
		payload := make([]byte, length)
		if _, err := io.ReadFull(conn, payload); err != nil {
			t.Fatal(err)
		}
		got, found := uint32(0), false
		for i := 0; i < length; i += 6 {
			if binary.BigEndian.Uint16(payload[i:]) == 0x3 {
				got, found = binary.BigEndian.Uint32(payload[i+2:]), true
			}
		}
		if !found || got != tc.want {
			t.Errorf("SETTINGS_MAX_CONCURRENT_STREAMS = %d (found %v), want %d", got, found, tc.want)
		}
		conn.Close()
	}
}
