package server

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Timeouts bound how long a client may hold a connection. The zero value
// of a field takes the default in [DefaultTimeouts].
type Timeouts struct {
	// ReadHeader bounds reading a request's headers.
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included.
	Read time.Duration
	// Write bounds the time from the end of the request headers to the
	// end of the response.
	Write time.Duration
	// Idle bounds how long a keep-alive connection waits for its next
	// request.
	Idle time.Duration
	// Shutdown bounds how long a graceful shutdown waits for requests in
	// flight before closing their connections.
	Shutdown time.Duration
}

// DefaultTimeouts are the timeouts [Serve] uses for zero fields.
var DefaultTimeouts = Timeouts{
	ReadHeader: 10 * time.Second,
	Read:       60 * time.Second,
	Write:      60 * time.Second,
	Idle:       120 * time.Second,
	Shutdown:   30 * time.Second,
}

func (t Timeouts) withDefaults() Timeouts {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&t.ReadHeader, DefaultTimeouts.ReadHeader)
	def(&t.Read, DefaultTimeouts.Read)
	def(&t.Write, DefaultTimeouts.Write)
	def(&t.Idle, DefaultTimeouts.Idle)
	def(&t.Shutdown, DefaultTimeouts.Shutdown)
	return t
}

// ServeOption configures [Serve] beyond its timeouts.
type ServeOption func(*serveOptions)

type serveOptions struct {
	tls            *tls.Config
	streamsPerConn int
	maxHeaderBytes int
}

// WithTLS makes [Serve] serve HTTPS with cfg (see [LoadTLS]) instead of
// plain HTTP.
func WithTLS(cfg *tls.Config) ServeOption {
	return func(o *serveOptions) { o.tls = cfg }
}

// WithMaxRequestsPerConnection bounds the requests one connection may
// have in flight at once (default DefaultMaxRequestsPerConnection). An
// HTTP/1.1 connection carries one request at a time anyway; over HTTP/2
// (HTTPS) this is the connection's SETTINGS_MAX_CONCURRENT_STREAMS, and
// a client that opens more streams has them refused.
func WithMaxRequestsPerConnection(n int) ServeOption {
	return func(o *serveOptions) { o.streamsPerConn = n }
}

// WithMaxHeaderBytes bounds the size of a request's headers (default
// DefaultMaxHeaderBytes); larger headers are answered 431.
func WithMaxHeaderBytes(n int) ServeOption {
	return func(o *serveOptions) { o.maxHeaderBytes = n }
}

// Serve serves h on ln until ctx is done, then shuts down gracefully: it
// stops accepting connections, closes idle ones, and waits up to
// t.Shutdown for the requests in flight to finish. It returns nil after a
// graceful shutdown, or the error that stopped it. It serves plain HTTP
// unless [WithTLS] is given.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, t Timeouts, log *slog.Logger, opts ...ServeOption) error {
	t = t.withDefaults()
	if log == nil {
		log = slog.Default()
	}
	o := serveOptions{streamsPerConn: DefaultMaxRequestsPerConnection, maxHeaderBytes: DefaultMaxHeaderBytes}
	for _, opt := range opts {
		opt(&o)
	}
	if o.streamsPerConn <= 0 {
		o.streamsPerConn = DefaultMaxRequestsPerConnection
	}
	if o.maxHeaderBytes <= 0 {
		o.maxHeaderBytes = DefaultMaxHeaderBytes
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    o.maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: o.streamsPerConn},
	}
	if o.tls != nil {
		srv.TLSConfig = o.tls.Clone()
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", slog.Duration("grace", t.Shutdown))
	sctx, cancel := context.WithTimeout(context.Background(), t.Shutdown)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
