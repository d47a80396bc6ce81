package server

import "net/http"

// cors.go: DynamoDB's endpoints allow browsers to call them from any
// origin (the AWS SDK for JavaScript in a browser). A CORS preflight, an
// OPTIONS request with an Origin, is answered 200 with an empty body:
// Access-Control-Allow-Origin: *, the requested method and headers
// echoed back (Access-Control-Allow-Methods and -Headers, each only when
// the browser asked for it), Access-Control-Expose-Headers, and always
// Access-Control-Max-Age. Every other answer to a request with an Origin
// carries Access-Control-Allow-Origin: * and the same
// Access-Control-Expose-Headers.

// corsMaxAge is how long a browser may cache a preflight, in seconds
// (two days, the value DynamoDB's endpoints send).
const corsMaxAge = "172800"

// corsExposeHeaders are the response headers a browser may read:
// DynamoDB's list, as dynamodb.us-east-1.amazonaws.com answered a
// preflight in a public survey of AWS endpoints' CORS answers (October
// 2020): x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date.
const corsExposeHeaders = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date"

// serveCORS answers a CORS preflight and reports whether it did; it sets
// the CORS headers of any other answer to a request with an Origin.
func serveCORS(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Origin") == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	if r.Method != http.MethodOptions {
		return false
	}
	if m := r.Header.Get("Access-Control-Request-Method"); m != "" {
		h.Set("Access-Control-Allow-Methods", m)
	}
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req)
	}
	h.Set("Access-Control-Max-Age", corsMaxAge)
	h.Set("x-amzn-RequestId", requestID())
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
	return true
}
