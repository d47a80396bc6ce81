package server

import "net/http"

// cors.go: DynamoDB's endpoints allow browsers to call them from any
// origin (the AWS SDK for JavaScript in a browser): a CORS preflight
// (OPTIONS with Access-Control-Request-Method) is answered 200 with the
// request's headers allowed, and every answer to a request with an
// Origin carries Access-Control-Allow-Origin: * and exposes the headers
// SDKs read.

// corsMaxAge is how long a browser may cache a preflight, in seconds.
const corsMaxAge = "172800"

// corsExposeHeaders are the response headers a browser SDK reads.
const corsExposeHeaders = "x-amzn-RequestId,x-amzn-ErrorType,x-amz-crc32,Date"

// serveCORS answers a CORS preflight and reports whether it did; it sets
// the CORS headers of any other answer to a request with an Origin.
func serveCORS(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Origin") != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	}
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
			h.Set("Access-Control-Allow-Headers", req)
		}
		h.Set("Access-Control-Max-Age", corsMaxAge)
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return true
	}
	return false
}
