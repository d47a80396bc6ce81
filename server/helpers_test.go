package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// testServer is a Server on an isolated fdblite database, listening on a
// random loopback port.
type testServer struct {
	*Server
	URL  string
	http *httptest.Server
	logs *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent logging.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// newTestServer starts a server for t, configured by cfg (the Logger and,
// if unset, the DB, an isolated fdblite database, are filled in), and
// stops it when t ends.
func newTestServer(t testing.TB, cfg Config) *testServer {
	t.Helper()
	if cfg.DB == (fdb.Database{}) {
		cfg.DB = fdblitetest.OpenIsolated(t)
	}
	logs := &syncBuffer{}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last first: the HTTP server stops, then the
	// background work, then the database closes.
	t.Cleanup(func() { s.Close() })
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return &testServer{Server: s, URL: hs.URL, http: hs, logs: logs}
}

// testCredentials are the dummy static credentials of the SDK clients.
var testCredentials = aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "test-secret-never-logged"}

// client returns an AWS SDK DynamoDB client of ts with credentials creds,
// which does not retry (so every error is the server's first answer).
func (ts *testServer) client(creds aws.Credentials) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(ts.URL),
		Region:       "us-east-1",
		Credentials:  aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
		HTTPClient:   &http.Client{Transport: bufferedBodies{ts.http.Client().Transport}},
		Retryer:      aws.NopRetryer{},
	})
}

// newTestClient starts a server for t as [newTestServer] does and returns
// it with an SDK client of it (credentials testCredentials).
func newTestClient(t testing.TB, cfg Config) (*testServer, *dynamodb.Client) {
	t.Helper()
	ts := newTestServer(t, cfg)
	return ts, ts.client(testCredentials)
}

// eachClient runs work for workers w = 0, 1, ... concurrently, each
// with its own SDK client of ts, and returns when all have ended; work
// reports failures with t.Error, which any goroutine may call.
func (ts *testServer) eachClient(workers int, work func(w int, c *dynamodb.Client)) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w, ts.client(testCredentials))
		}()
	}
	wg.Wait()
}

// addOne adds 1 to the number n of the item with partition key pk.
func addOne(t testing.TB, c *dynamodb.Client, table, pk string) error {
	_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s(pk)},
		UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}})
	return err
}

// counter returns the number n of the item with partition key pk, read
// consistently; "0" when there is no item.
func counter(t testing.TB, c *dynamodb.Client, table, pk string) string {
	t.Helper()
	got, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s(pk)},
		ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Item == nil {
		return "0"
	}
	return got.Item["n"].(*types.AttributeValueMemberN).Value
}

// serveLoopback runs Serve with h on a fresh loopback listener, as
// fdyno-server does, and returns its address, a stop that starts its
// shutdown, and the channel that receives Serve's result. When t ends,
// the shutdown starts and Serve has returned.
func (ts *testServer) serveLoopback(t testing.TB, h http.Handler, to Timeouts, opts ...ServeOption) (addr string, stop func(), served <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithCancel(context.Background())
	result, done := make(chan error, 1), make(chan struct{})
	go func() {
		result <- Serve(c, ln, h, to, ts.log, opts...)
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String(), cancel, result
}

// halfSentRequest connects to addr and sends a ListTables request whose
// body stops after 4 bytes, so that the server holds it in its operation.
// finish sends the rest and returns the answer's status code. The
// connection closes when t ends.
func halfSentRequest(t testing.TB, addr string) (finish func() int) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	body := `{"Limit":5}`
	head := "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: " + contentType + "\r\nX-Amz-Target: " + targetPrefix + "ListTables\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+body[:4]); err != nil {
		t.Fatal(err)
	}
	return func() int {
		t.Helper()
		if _, err := io.WriteString(conn, body[4:]); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
}

// call sends one operation's raw JSON body to the handler and returns the
// status, the decoded response body, and the error type and message.
func (ts *testServer) call(t testing.TB, op, body string) (int, map[string]any, string, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	rec := httptest.NewRecorder()
	ts.Server.ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: response %q is not JSON: %v", op, rec.Body, err)
	}
	typ, _ := out["__type"].(string)
	_, name, _ := strings.Cut(typ, "#")
	msg, _ := out["message"].(string)
	return rec.Code, out, name, msg
}

// mustCall is call for a request that must succeed.
func (ts *testServer) mustCall(t testing.TB, op, body string) map[string]any {
	t.Helper()
	code, out, name, msg := ts.call(t, op, body)
	if code != http.StatusOK {
		t.Fatalf("%s %s: %d %s: %s", op, body, code, name, msg)
	}
	return out
}

// post sends a raw request and returns the status and the decoded error
// type (the part of __type after '#') and message, if any.
func (ts *testServer) post(t testing.TB, target, contentType string, body io.Reader) (int, string, string) {
	t.Helper()
	return doRaw(t, ts.http.Client(), ts.request(t, target, contentType, body))
}

// request is a POST to ts with the headers X-Amz-Target target and
// Content-Type contentType (each left out if "").
func (ts *testServer) request(t testing.TB, target, contentType string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL, body)
	if err != nil {
		t.Fatal(err)
	}
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// doRaw sends req with c and returns the status and the decoded error
// type (the part of __type after '#') and message, if any.
func doRaw(t testing.TB, c *http.Client, req *http.Request) (int, string, string) {
	t.Helper()
	status, raw := doRawBody(t, c, req)
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	if status != http.StatusOK {
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("error body %q is not JSON: %v", raw, err)
		}
	}
	_, name, _ := strings.Cut(e.Type, "#")
	return status, name, e.Message
}

// doRawBody sends req with c and returns the status and the body.
func doRawBody(t testing.TB, c *http.Client, req *http.Request) (int, []byte) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}

// createTable creates table name with a string partition key pk and, if
// sk is not "", a sort key sk of type skType.
func createTable(t testing.TB, c *dynamodb.Client, name, sk string, skType types.ScalarAttributeType) {
	t.Helper()
	in := pkTableInput(name)
	if sk != "" {
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(sk), AttributeType: skType})
	}
	mustCreateTable(t, c, in)
}

// createStreamTable creates table name with a string partition key pk and
// a stream of view type view.
func createStreamTable(t testing.TB, c *dynamodb.Client, name string, view types.StreamViewType) {
	t.Helper()
	in := pkTableInput(name)
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}
	mustCreateTable(t, c, in)
}

// pkTableInput is the CreateTable input of an on-demand table name with a
// string partition key pk.
func pkTableInput(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
	}
}

// mustCreateTable runs CreateTable with in and fails t if it fails.
func mustCreateTable(t testing.TB, c *dynamodb.Client, in *dynamodb.CreateTableInput) {
	t.Helper()
	if _, err := c.CreateTable(ctx(t), in); err != nil {
		t.Fatalf("CreateTable %s: %v", aws.ToString(in.TableName), err)
	}
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// bufferedBodies is an http.RoundTripper that hands the transport an
// in-memory copy of each request body. It works around a race in the AWS
// SDK for Go v2 (smithy-go v1.28): the SDK closes its request body
// wrapper as soon as the response headers arrive, after which the
// wrapper's WriteTo returns io.EOF; if net/http's transport is still
// making its final read of the body, it takes that io.EOF for a read
// error and closes the connection while a response of more than one read
// (over ~4 KB) is being read: "use of closed network connection". A
// server that answers before the client has finished writing, as a fast
// one on loopback can, triggers it (cmd/fdyno-bench has the same type).
type bufferedBodies struct{ next http.RoundTripper }

func (b bufferedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	return b.next.RoundTrip(req)
}
