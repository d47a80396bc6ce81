package server

import (
	"crypto/tls"
	"errors"
	"fmt"
)

// tls.go loads the certificate fdyno-server serves HTTPS with. HTTPS is
// the AWS SDKs' default scheme: a client configured with an https://
// endpoint needs nothing else but to trust the certificate. Plain HTTP
// stays the default for loopback use.

// LoadTLS returns the TLS configuration of a server that presents the
// PEM certificate chain in certFile with the private key in keyFile. It
// accepts TLS 1.2 and 1.3 and offers HTTP/2 and HTTP/1.1 by ALPN. Errors
// name the files, never the key's bytes.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("server: TLS needs both a certificate file and a key file")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("server: loading the TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}, nil
}
