package server

import (
	"crypto/tls"
	"encoding/binary"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// With MaxConcurrentRequests 1, a request in its operation (here, one
// held in it by the test) takes the only slot: the next is refused at
// once with ThrottlingException, and once the first finishes the next is
// served.
func TestMaxConcurrentRequests(t *testing.T) {
	ts := newTestServer(t, Config{MaxConcurrentRequests: 1})
	entered, release := make(chan struct{}), make(chan struct{})
	ts.ops[targetPrefix+"Hold"] = func(*Server, *call, []byte) (any, error) {
		entered <- struct{}{}
		<-release
		return struct{}{}, nil
	}
	first := make(chan int)
	go func() {
		status, _, _ := ts.post(t, targetPrefix+"Hold", contentType, strings.NewReader(`{}`))
		first <- status
	}()
	<-entered
	status, typ, msg := ts.post(t, targetPrefix+"ListTables", contentType, strings.NewReader(`{}`))
	if status != 400 || typ != "ThrottlingException" || msg != "Rate of requests exceeds the allowed throughput." {
		t.Errorf("second request: %d %s %q, want 400 ThrottlingException", status, typ, msg)
	}
	close(release)
	if status := <-first; status != 200 {
		t.Errorf("first request: status %d", status)
	}
	if status, typ, _ := ts.post(t, targetPrefix+"ListTables", contentType, strings.NewReader(`{}`)); status != 200 {
		t.Errorf("after the first finished: %d %s, want 200", status, typ)
	}
}

// Clients that never finish sending their body, or cannot sign, hold no
// request slot: with MaxConcurrentRequests 2 and --auth, twenty such
// connections are open while a signed client's requests are all
// answered. (Before, two half-sent bodies took both slots and everyone
// else was refused with ThrottlingException until the read timeout.)
func TestSlowClientsHoldNoSlot(t *testing.T) {
	ts := newTestServer(t, Config{MaxConcurrentRequests: 2, Keys: map[string]string{testCredentials.AccessKeyID: testCredentials.SecretAccessKey}})
	addr := strings.TrimPrefix(ts.URL, "http://")
	var finish []func() int
	for range 20 {
		finish = append(finish, halfSentRequest(t, addr))
	}
	db := ts.client(testCredentials)
	for i := range 10 {
		if _, err := db.ListTables(t.Context(), &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("signed request %d with 20 slow clients connected: %v", i, err)
		}
	}
	if n := len(ts.inFlight); n != 0 {
		t.Errorf("%d slots held while no request runs", n)
	}
	// The slow clients, unsigned, are refused once their bodies arrive.
	for _, f := range finish[:2] {
		if status := f(); status != 400 {
			t.Errorf("unsigned slow request: status %d, want 400", status)
		}
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
