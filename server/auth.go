package server

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// auth.go verifies AWS Signature Version 4, the way AWS services do, when
// the server has access keys (Config.Keys):
//
//  1. The Authorization header is parsed: algorithm AWS4-HMAC-SHA256,
//     Credential=<key ID>/<yyyymmdd>/<region>/dynamodb/aws4_request,
//     SignedHeaders=<lower-case names joined by ';', host among them>,
//     Signature=<64 hex digits>.
//  2. The request time (X-Amz-Date, or Date) must be signed, within 15
//     minutes of the server's clock, and on the credential scope's day.
//  3. The canonical request (method, URI path, query, signed headers and
//     the SHA-256 of the body) is hashed into the string to sign, which
//     is signed with the key derived from the secret by the HMAC chain
//     AWS4<secret> → date → region → service → aws4_request, and the
//     result is compared in constant time.
//
// Failures are DynamoDB's errors: MissingAuthenticationTokenException (no
// signature), IncompleteSignatureException (a malformed header),
// UnrecognizedClientException (an unknown key ID) and
// InvalidSignatureException (a wrong signature, scope or time). Secrets
// appear in no error and no log record.

// SigV4 constants.
const (
	sigV4Algorithm = "AWS4-HMAC-SHA256"
	sigV4Service   = "dynamodb"
	sigV4Request   = "aws4_request"
	amzDateFormat  = "20060102T150405Z"
	// MaxClockSkew is how far a request's time may be from the server's.
	MaxClockSkew = 15 * time.Minute
)

// authHeader is a parsed SigV4 Authorization header.
type authHeader struct {
	keyID         string
	date          string // yyyymmdd of the credential scope
	region        string
	service       string
	terminator    string
	signedHeaders []string
	signature     []byte
}

func incomplete(msg string) error {
	return &apiError{typ: errIncompleteSignature, msg: msg}
}

func invalidSignature(msg string) error {
	return &apiError{typ: errInvalidSignature, msg: msg}
}

// authParams splits the parameters of an Authorization header after its
// algorithm. They are separated by commas, white space or both (boto3
// writes ", ", other signers "," or " "), and each is name=value. Each of
// Credential, SignedHeaders and Signature must appear exactly once, and
// no other name may: a header that could be read two ways is refused, so
// the identity taken from it is the one whose signature is checked.
func authParams(rest string) (cred, signed, sig string, err error) {
	var haveCred, haveSigned, haveSig bool
	for _, part := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return "", "", "", incomplete("'" + truncate(part, 64) + "' not a valid key=value pair (missing equal-sign) in Authorization header")
		}
		var have *bool
		switch k {
		case "Credential":
			cred, have = v, &haveCred
		case "SignedHeaders":
			signed, have = v, &haveSigned
		case "Signature":
			sig, have = v, &haveSig
		default:
			return "", "", "", incomplete("'" + truncate(k, 64) + "' is not a parameter of an AWS4-HMAC-SHA256 Authorization header")
		}
		if *have {
			return "", "", "", incomplete("Authorization header has a duplicate '" + k + "' parameter")
		}
		*have = true
	}
	switch {
	case !haveCred:
		return "", "", "", incomplete("Authorization header requires 'Credential' parameter")
	case !haveSigned:
		return "", "", "", incomplete("Authorization header requires 'SignedHeaders' parameter")
	case !haveSig:
		return "", "", "", incomplete("Authorization header requires 'Signature' parameter")
	}
	return cred, signed, sig, nil
}

// parseAuthorization parses a SigV4 Authorization header value. Errors
// are IncompleteSignatureExceptions.
func parseAuthorization(h string) (authHeader, error) {
	var a authHeader
	alg, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	if alg != sigV4Algorithm {
		return a, incomplete("Unsupported AWS 'algorithm': '" + truncate(alg, 64) + "'")
	}
	cred, signed, sig, err := authParams(rest)
	if err != nil {
		return a, err
	}
	scope := strings.Split(cred, "/")
	if len(scope) != 5 || scope[0] == "" {
		return a, incomplete("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term")
	}
	a.keyID, a.date, a.region, a.service, a.terminator = scope[0], scope[1], scope[2], scope[3], scope[4]
	if len(a.date) != 8 || strings.Trim(a.date, "0123456789") != "" {
		return a, incomplete("Credential date must be in yyyyMMdd format")
	}
	a.signedHeaders = strings.Split(signed, ";")
	for i, n := range a.signedHeaders {
		if n == "" || n != strings.ToLower(n) || i > 0 && a.signedHeaders[i-1] >= n {
			return a, incomplete("SignedHeaders must be lower-case header names, sorted and separated by ';'")
		}
	}
	if !slices.Contains(a.signedHeaders, "host") {
		return a, incomplete("'Host' must be a 'SignedHeader' in the AWS Authorization")
	}
	if len(sig) != 2*sha256.Size {
		return a, incomplete("Signature must be 64 hexadecimal digits")
	}
	if a.signature, err = hex.DecodeString(sig); err != nil {
		return a, incomplete("Signature must be 64 hexadecimal digits")
	}
	return a, nil
}

// unsignedCredential is the access key ID and region an Authorization
// header names when the server checks no signatures (Config.Keys is nil):
// they only choose the namespace, as DynamoDB Local's do. It reads the
// header with authParams, as authenticate does; a header it cannot read
// names no key.
func unsignedCredential(h string) (keyID, region string) {
	_, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	cred, _, _, err := authParams(rest)
	if err != nil {
		return "", ""
	}
	scope := strings.Split(cred, "/")
	if len(scope) < 3 {
		return "", ""
	}
	return scope[0], scope[2]
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// identity is who signed a request: the access key ID and the region of
// the credential scope whose signature authenticate verified. It alone
// chooses the request's namespace and policies.
type identity struct {
	keyID, region string
}

// authenticate checks r's signature over body against s.keys and returns
// the identity it verified. As DynamoDB does, it checks the request's
// time before anything else of the signature: a stale request is
// "Signature expired" whatever its other parts.
func (s *Server) authenticate(r *http.Request, body []byte) (identity, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return identity{}, &apiError{typ: errMissingToken, msg: "Request is missing Authentication Token"}
	}
	t, dateHeader, err := requestTime(r)
	if err != nil {
		return identity{}, err
	}
	now := s.now().UTC()
	switch {
	case t.Before(now.Add(-MaxClockSkew)):
		return identity{}, invalidSignature("Signature expired: " + t.Format(amzDateFormat) + " is now earlier than " +
			now.Add(-MaxClockSkew).Format(amzDateFormat) + " (" + now.Format(amzDateFormat) + " - 15 min.)")
	case t.After(now.Add(MaxClockSkew)):
		return identity{}, invalidSignature("Signature not yet current: " + t.Format(amzDateFormat) + " is still later than " +
			now.Add(MaxClockSkew).Format(amzDateFormat) + " (" + now.Format(amzDateFormat) + " + 15 min.)")
	}
	a, err := parseAuthorization(h)
	if err != nil {
		return identity{}, err
	}
	if !slices.Contains(a.signedHeaders, dateHeader) {
		return identity{}, incomplete("The '" + dateHeader + "' header must be a 'SignedHeader' in the AWS Authorization")
	}
	amzDate := t.Format(amzDateFormat)
	switch {
	case a.date != amzDate[:8]:
		return identity{}, invalidSignature("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" +
			a.date + "' != '" + amzDate[:8] + "', from '" + amzDate + "'.")
	case a.service != sigV4Service:
		return identity{}, invalidSignature("Credential should be scoped to correct service: '" + sigV4Service + "'.")
	case a.terminator != sigV4Request:
		return identity{}, invalidSignature("Credential should be scoped with a valid terminator: '" + sigV4Request + "', not '" + truncate(a.terminator, 64) + "'.")
	}
	secret, ok := s.keys[a.keyID]
	if !ok {
		return identity{}, &apiError{typ: errUnrecognizedClient, msg: "The security token included in the request is invalid."}
	}
	scope := a.date + "/" + a.region + "/" + a.service + "/" + sigV4Request
	sts := sigV4Algorithm + "\n" + amzDate + "\n" + scope + "\n" + hexSHA256([]byte(canonicalRequest(r, a.signedHeaders, body)))
	key := signingKey(secret, a.date, a.region, a.service)
	if !hmac.Equal(hmacSHA256(key, []byte(sts)), a.signature) {
		return identity{}, invalidSignature("The request signature we calculated does not match the signature you provided. " +
			"Check your AWS Secret Access Key and signing method. Consult the service documentation for details.")
	}
	return identity{keyID: a.keyID, region: a.region}, nil
}

// identify returns who sent r: with keys, the identity authenticate
// verified; without, the key ID and region its Authorization header
// names, unverified, which only choose a namespace.
func (s *Server) identify(r *http.Request, body []byte) (identity, error) {
	if s.keys != nil {
		return s.authenticate(r, body)
	}
	keyID, region := unsignedCredential(r.Header.Get("Authorization"))
	return identity{keyID: keyID, region: region}, nil
}

// requestTime returns the request's signing time and the header it came
// from: X-Amz-Date (ISO 8601 basic), or else Date (HTTP date).
func requestTime(r *http.Request) (time.Time, string, error) {
	if v := r.Header.Get("X-Amz-Date"); v != "" {
		t, err := time.Parse(amzDateFormat, v)
		if err != nil {
			return t, "", incomplete("X-Amz-Date must be in the ISO 8601 basic format yyyyMMdd'T'HHmmss'Z'")
		}
		return t, "x-amz-date", nil
	}
	if v := r.Header.Get("Date"); v != "" {
		t, err := http.ParseTime(v)
		if err != nil {
			return t, "", incomplete("Date must be an HTTP date")
		}
		return t.UTC(), "date", nil
	}
	return time.Time{}, "", incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
}

// canonicalRequest is SigV4's canonical form of r.
func canonicalRequest(r *http.Request, signed []string, body []byte) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(awsEscape(path, true))
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(r.URL.RawQuery))
	b.WriteByte('\n')
	for _, name := range signed {
		b.WriteString(name)
		b.WriteByte(':')
		b.WriteString(headerValue(r, name))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signed, ";"))
	b.WriteByte('\n')
	b.WriteString(hexSHA256(body))
	return b.String()
}

// headerValue is the canonical value of header name: its values trimmed,
// runs of spaces collapsed, joined by commas. Go's server keeps Host and
// the body length outside Header.
func headerValue(r *http.Request, name string) string {
	var vals []string
	switch name {
	case "host":
		vals = []string{r.Host}
	case "content-length":
		vals = r.Header.Values(name)
		if len(vals) == 0 && r.ContentLength >= 0 {
			vals = []string{strconv.FormatInt(r.ContentLength, 10)}
		}
	default:
		vals = r.Header.Values(name)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(out, ",")
}

// canonicalQuery sorts the query's parameters by name, then value, and
// escapes them as SigV4 does (%20 for a space).
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return raw // cannot match a well-formed signature; fails below
	}
	for k := range q {
		slices.Sort(q[k])
	}
	return strings.ReplaceAll(q.Encode(), "+", "%20")
}

// awsEscape percent-encodes every byte but the unreserved ones (and '/'
// in paths), as SigV4 does; the path it gets is already escaped once, so
// it is encoded twice, as AWS does for every service but S3.
func awsEscape(s string, path bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || path && c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

func signingKey(secret, date, region, service string) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), []byte(date))
	k = hmacSHA256(k, []byte(region))
	k = hmacSHA256(k, []byte(service))
	return hmacSHA256(k, []byte(sigV4Request))
}

func hmacSHA256(key, data []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil)
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// LoadKeys reads an access key file: one key per line, an access key ID
// and its secret access key separated by white space, and optionally the
// 12-digit account the key belongs to (see [LoadKeyFile]); blank lines
// and lines starting with '#' are skipped. Errors name the line, never a
// secret.
func LoadKeys(r io.Reader) (map[string]string, error) {
	keys, _, err := LoadKeyFile(r)
	return keys, err
}

// LoadKeyFile reads an access key file as [LoadKeys] does, and returns
// also the accounts of the keys whose line names one (for
// Config.Accounts).
func LoadKeyFile(r io.Reader) (keys, accounts map[string]string, err error) {
	keys, accounts = map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 && len(f) != 3 {
			return nil, nil, errors.New("server: access key file line " + strconv.Itoa(n) + ": want an access key ID, a secret access key and optionally an account")
		}
		if _, dup := keys[f[0]]; dup {
			return nil, nil, errors.New("server: access key file line " + strconv.Itoa(n) + ": access key ID " + f[0] + " given twice")
		}
		keys[f[0]] = f[1]
		if len(f) == 3 {
			if !validAccount(f[2]) {
				return nil, nil, errors.New("server: access key file line " + strconv.Itoa(n) + ": the account must be 12 digits")
			}
			accounts[f[0]] = f[2]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(keys) == 0 {
		return nil, nil, errors.New("server: the access key file has no keys")
	}
	return keys, accounts, nil
}
