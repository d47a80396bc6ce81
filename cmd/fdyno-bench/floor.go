package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// The floor server answers every request of the workload with a fixed,
// well-formed response of the size a real server sends (one 1 KB item
// for GetItem, queryLimit of them for Query) without storing anything.
// Measured with the same client beside the real servers, its throughput
// is the most that any DynamoDB-compatible server can show through this
// client, on this machine: the cost of the SDK, JSON, HTTP and loopback.
// The report prints it, and what it means for the fdyno/dynalite ratio.

// floorResponses maps an X-Amz-Target operation to its fixed answer.
func floorResponses() map[string][]byte {
	item := func(i int) map[string]any {
		pk, sk := key(i)
		return map[string]any{"pk": map[string]string{"S": pk}, "sk": map[string]string{"N": sk}, "payload": map[string]string{"S": payload}}
	}
	items := make([]any, queryLimit)
	for i := range items {
		items[i] = item(i * partitions)
	}
	desc := map[string]any{"TableName": table, "TableStatus": "ACTIVE", "ItemCount": 0,
		"KeySchema": []any{map[string]string{"AttributeName": "pk", "KeyType": "HASH"}, map[string]string{"AttributeName": "sk", "KeyType": "RANGE"}}}
	out := map[string][]byte{}
	for op, v := range map[string]any{
		"CreateTable":   map[string]any{"TableDescription": desc},
		"DescribeTable": map[string]any{"Table": desc},
		"PutItem":       map[string]any{},
		"GetItem":       map[string]any{"Item": item(0)},
		"Query":         map[string]any{"Items": items, "Count": queryLimit, "ScannedCount": queryLimit},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err) // fixed values: cannot fail
		}
		out[op] = b
	}
	return out
}

// floorHandler reads each request whole, as any server must, and writes
// the fixed answer of its operation.
func floorHandler() http.Handler {
	responses := floorResponses()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		_, op, _ := strings.Cut(r.Header.Get("X-Amz-Target"), ".")
		body, ok := responses[op]
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			body = []byte(`{"__type":"com.amazonaws.dynamodb.v20120810#UnknownOperationException"}`)
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
}

// serveFloor serves the floor server on ln until ctx ends.
func serveFloor(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: floorHandler()}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
