package server

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/go-cmp/cmp"
)

// Vectors from AWS's Signature Version 4 documentation.
func TestSigV4Vectors(t *testing.T) {
	// "Examples of how to derive a signing key for Signature Version 4".
	key := signingKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam")
	if got, want := hex.EncodeToString(key), "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"; got != want {
		t.Errorf("signing key = %s, want %s", got, want)
	}
	// The test suite's get-vanilla request.
	r, err := http.NewRequest(http.MethodGet, "https://example.amazonaws.com/", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("X-Amz-Date", "20150830T123600Z")
	signed := []string{"host", "x-amz-date"}
	creq := canonicalRequest(r, signed, nil)
	wantCreq := "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if diff := cmp.Diff(wantCreq, creq); diff != "" {
		t.Errorf("canonical request mismatch (-want +got):\n%s", diff)
	}
	sts := sigV4Algorithm + "\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n" + hexSHA256([]byte(creq))
	sig := hmacSHA256(signingKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830", "us-east-1", "service"), []byte(sts))
	if got, want := hex.EncodeToString(sig), "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"; got != want {
		t.Errorf("get-vanilla signature = %s, want %s", got, want)
	}
}

// With access keys, requests signed by the SDK with a known key pass and
// every other request is refused with DynamoDB's error.
func TestSigV4WithSDK(t *testing.T) {
	keys := map[string]string{testCredentials.AccessKeyID: testCredentials.SecretAccessKey, "AKIDOTHER": "other-secret"}
	var now time.Time // zero: the real clock
	ts := newTestServer(t, Config{Keys: keys, Now: func() time.Time {
		if now.IsZero() {
			return time.Now()
		}
		return now
	}})
	ok := ts.client(testCredentials)
	if _, err := ok.ListTables(ctx(t), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("signed with a known key: %v", err)
	}
	if _, err := ts.client(aws.Credentials{AccessKeyID: "AKIDOTHER", SecretAccessKey: "other-secret", SessionToken: "tok"}).ListTables(ctx(t), &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("signed with the second key and a session token: %v", err)
	}
	_, err := ts.client(aws.Credentials{AccessKeyID: testCredentials.AccessKeyID, SecretAccessKey: "wrong"}).ListTables(ctx(t), &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "InvalidSignatureException", "The request signature we calculated does not match")
	_, err = ts.client(aws.Credentials{AccessKeyID: "AKIDUNKNOWN", SecretAccessKey: "x"}).ListTables(ctx(t), &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException", "The security token included in the request is invalid")

	// The server's clock 16 minutes behind or ahead of the client's.
	for _, skew := range []time.Duration{16 * time.Minute, -16 * time.Minute} {
		now = time.Now().Add(skew)
		_, err = ok.ListTables(ctx(t), &dynamodb.ListTablesInput{})
		want := "Signature expired"
		if skew < 0 {
			want = "Signature not yet current"
		}
		wantAPIError(t, err, "InvalidSignatureException", want)
	}
	now = time.Now().Add(14 * time.Minute)
	if _, err := ok.ListTables(ctx(t), &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("14 minutes of skew: %v", err)
	}
	now = time.Time{}

	// Requests signed with the SDK's signer, then altered.
	signed := func(body string, alter func(*http.Request)) *http.Request {
		r := ts.request(t, targetPrefix+"ListTables", contentType, strings.NewReader(body))
		err := v4.NewSigner().SignHTTP(context.Background(), testCredentials, r, hexSHA256([]byte(body)), "dynamodb", "us-east-1", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if alter != nil {
			alter(r)
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		req     *http.Request
		status  int
		errName string
	}{
		{"signed", signed(`{"Limit":1}`, nil), 200, ""},
		{"tampered body", signed(`{"Limit":1}`, func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(`{"Limit":2}`)), 11
		}), 400, "InvalidSignatureException"},
		{"tampered target", signed(`{}`, func(r *http.Request) { r.Header.Set("X-Amz-Target", targetPrefix+"DeleteTable") }), 400, "InvalidSignatureException"},
		{"no Authorization", signed(`{}`, func(r *http.Request) { r.Header.Del("Authorization") }), 400, "MissingAuthenticationTokenException"},
		{"other algorithm", signed(`{}`, func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), sigV4Algorithm, "AWS4-HMAC-SHA512", 1))
		}), 400, "IncompleteSignatureException"},
		{"no X-Amz-Date", signed(`{}`, func(r *http.Request) { r.Header.Del("X-Amz-Date") }), 400, "IncompleteSignatureException"},
		{"wrong service", signedFor(t, ts.URL, "s3", "us-east-1"), 400, "InvalidSignatureException"},
		{"any region", signedFor(t, ts.URL, "dynamodb", "eu-west-3"), 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, name, msg := doRaw(t, ts.http.Client(), tc.req)
			if status != tc.status || name != tc.errName {
				t.Errorf("got %d %s (%s), want %d %s", status, name, msg, tc.status, tc.errName)
			}
		})
	}
	// No secret reaches the log.
	for _, secret := range []string{testCredentials.SecretAccessKey, "other-secret"} {
		if strings.Contains(ts.logs.String(), secret) {
			t.Errorf("the log contains secret %q", secret)
		}
	}
}

func signedFor(t *testing.T, url, service, region string) *http.Request {
	r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("X-Amz-Target", targetPrefix+"ListTables")
	if err := v4.NewSigner().SignHTTP(context.Background(), testCredentials, r, hexSHA256([]byte(`{}`)), service, region, time.Now()); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLoadKeys(t *testing.T) {
	keys, err := LoadKeys(strings.NewReader("# fdyno-server keys\n\nAKID1 secret1\n  AKID2\tsecret/2+x  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"AKID1": "secret1", "AKID2": "secret/2+x"}, keys); diff != "" {
		t.Errorf("LoadKeys mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "# only a comment\n", "AKID1\n", "AKID1 s1\nAKID1 s2\n", "a b c\n"} {
		if _, err := LoadKeys(strings.NewReader(bad)); err == nil {
			t.Errorf("LoadKeys(%q) succeeded", bad)
		} else if strings.Contains(err.Error(), "s1") || strings.Contains(err.Error(), "s2") {
			t.Errorf("LoadKeys error %q shows a secret", err)
		}
	}
}

// FuzzParseAuthorization: parsing never panics; errors are
// IncompleteSignatureExceptions; an accepted header, printed back in
// canonical form, parses to the same fields.
func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{
		"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
		"AWS4-HMAC-SHA256 Credential=A/20150830/r/s/aws4_request,SignedHeaders=host,Signature=" + strings.Repeat("0", 64),
		"AWS4-HMAC-SHA256 Credential=A/2015/r/s/t, SignedHeaders=host;host, Signature=zz",
		"AWS4-HMAC-SHA256 ", "Basic dXNlcjpwYXNz", "AWS4-HMAC-SHA256 Credential=a=b=c, Signature",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		a, err := parseAuthorization(h)
		if err != nil {
			ae, ok := err.(*apiError)
			if !ok || ae.typ != errIncompleteSignature {
				t.Fatalf("error %v is not an IncompleteSignatureException", err)
			}
			return
		}
		again := sigV4Algorithm + " Credential=" + a.keyID + "/" + a.date + "/" + a.region + "/" + a.service + "/" + a.terminator +
			", SignedHeaders=" + strings.Join(a.signedHeaders, ";") + ", Signature=" + hex.EncodeToString(a.signature)
		b, err := parseAuthorization(again)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", again, h, err)
		}
		if !cmp.Equal(a, b, cmp.AllowUnexported(authHeader{})) {
			t.Fatalf("%q parsed to %+v, its canonical form to %+v", h, a, b)
		}
	})
}
