package server

import "net/http"

// limits.go holds the server's abuse limits: bounds a client cannot talk
// its way past, each a flag of fdyno-server with a default sized for one
// machine.
//
//  1. A request body is at most MaxRequestBodySize bytes, DynamoDB's
//     16 MB (readBody): larger bodies are a 413
//     RequestEntityTooLargeException before the operation decodes them.
//  2. Headers are at most DefaultMaxHeaderBytes ([WithMaxHeaderBytes]),
//     and must arrive within Timeouts.ReadHeader; a whole request within
//     Timeouts.Read; an idle keep-alive connection is closed after
//     Timeouts.Idle (http.go).
//  3. One connection has at most DefaultMaxRequestsPerConnection requests
//     in flight ([WithMaxRequestsPerConnection]; HTTP/2's stream limit,
//     HTTP/1.1 carrying one at a time).
//  4. The server has at most Config.MaxConcurrentRequests requests in
//     its operations at once (default DefaultMaxConcurrentRequests);
//     beyond that a request is refused at once with DynamoDB's
//     ThrottlingException, which the AWS SDKs retry with back-off, rather
//     than queued where it would hold memory and a connection.

// Defaults of the abuse limits.
const (
	// DefaultMaxHeaderBytes bounds a request's headers (64 KB; a SigV4
	// request's are well under 4 KB).
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxRequestsPerConnection bounds the requests in flight on one
	// HTTP/2 connection.
	DefaultMaxRequestsPerConnection = 64
	// DefaultMaxConcurrentRequests bounds the requests in flight in the
	// whole server.
	DefaultMaxConcurrentRequests = 1024
)

// errThrottling is DynamoDB's ThrottlingException, its answer when
// requests arrive faster than it serves them.
var errThrottling = errType{"com.amazon.coral.availability#ThrottlingException", http.StatusBadRequest}

func throttled() error {
	return &apiError{typ: errThrottling, msg: "Rate of requests exceeds the allowed throughput."}
}

// admit takes one of the server's request slots, or refuses with a
// ThrottlingException when all are taken; release gives it back.
func (s *Server) admit() error {
	select {
	case s.inFlight <- struct{}{}:
		return nil
	default:
		return throttled()
	}
}

func (s *Server) release() { <-s.inFlight }
