package server

import (
	"context"
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

// Serve serves h on ln until ctx is done, then shuts down gracefully: it
// stops accepting connections, closes idle ones, and waits up to
// t.Shutdown for the requests in flight to finish. It returns nil after a
// graceful shutdown, or the error that stopped it.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, t Timeouts, log *slog.Logger) error {
	t = t.withDefaults()
	if log == nil {
		log = slog.Default()
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
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
