package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// selfSigned writes a fresh self-signed certificate for 127.0.0.1 and
// localhost and its key into dir, and returns their paths and a pool
// that trusts the certificate.
func selfSigned(t testing.TB, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "fdyno-server test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// serveTLS serves ts's Server over HTTPS with a fresh self-signed
// certificate and returns the https:// URL and a client trusting it.
func serveTLS(t *testing.T, ts *testServer, opts ...ServeOption) (string, *http.Client) {
	t.Helper()
	certFile, _, pool := selfSigned(t, t.TempDir())
	url := serveTLSFiles(t, ts, certFile, opts...)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return url, &http.Client{Transport: tr}
}

// serveTLSFiles serves ts's Server over HTTPS with certFile and the
// key.pem beside it, and returns the https:// URL.
func serveTLSFiles(t *testing.T, ts *testServer, certFile string, opts ...ServeOption) string {
	t.Helper()
	cfg, err := LoadTLS(certFile, filepath.Join(filepath.Dir(certFile), "key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	addr, _, _ := ts.serveLoopback(t, ts.Server, Timeouts{}, append([]ServeOption{WithTLS(cfg)}, opts...)...)
	return "https://" + addr
}

// With a certificate and key, the server speaks HTTPS, the SDKs' default
// scheme: the AWS SDK for Go v2 creates a table and writes and reads an
// item over it, by HTTP/2 as ALPN negotiates.
func TestTLSWithSDK(t *testing.T) {
	ts := newTestServer(t, Config{})
	url, hc := serveTLS(t, ts)
	c := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return testCredentials, nil }),
		HTTPClient:   hc,
		Retryer:      aws.NopRetryer{},
	})
	createTable(t, c, "Secure", "", "")
	if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Secure"), Item: map[string]types.AttributeValue{"pk": s("a"), "v": s("over TLS")}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("Secure"), Key: map[string]types.AttributeValue{"pk": s("a")}})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := out.Item["v"].(*types.AttributeValueMemberS); !ok || v.Value != "over TLS" {
		t.Errorf("GetItem over TLS = %v", out.Item)
	}
	resp, err := hc.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.TLS == nil {
		t.Errorf("health check over TLS: proto %s, TLS %v; want HTTP/2 over TLS", resp.Proto, resp.TLS != nil)
	}

	// A client that does not trust the certificate is refused by its
	// own TLS stack; a plain-HTTP request to the TLS port gets no answer
	// of the DynamoDB protocol.
	if _, err := http.Get(url + "/"); err == nil {
		t.Error("GET with the system roots succeeded against a self-signed certificate")
	}
	if resp, err := http.Get("http://" + strings.TrimPrefix(url, "https://") + "/"); err == nil {
		if resp.StatusCode == 200 {
			t.Error("plain HTTP to the TLS port answered 200")
		}
		resp.Body.Close()
	}
}

// LoadTLS refuses a missing file, a missing half, or a key that is not
// the certificate's, and its error names the files but holds no key
// bytes.
func TestLoadTLSErrors(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, _ := selfSigned(t, dir)
	_, otherKey, _ := selfSigned(t, t.TempDir())
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, cert, key string }{
		{"no key", certFile, ""},
		{"no cert", "", keyFile},
		{"missing file", filepath.Join(dir, "absent.pem"), keyFile},
		{"mismatched key", certFile, otherKey},
		{"key as cert", keyFile, keyFile},
	} {
		_, err := LoadTLS(tc.cert, tc.key)
		if err == nil {
			t.Errorf("%s: LoadTLS succeeded", tc.name)
			continue
		}
		if body := strings.Split(string(keyPEM), "\n")[1]; strings.Contains(err.Error(), body) {
			t.Errorf("%s: error %q holds key material", tc.name, err)
		}
	}
	if _, err := LoadTLS(certFile, keyFile); err != nil {
		t.Errorf("LoadTLS of a matching pair: %v", err)
	}
}
