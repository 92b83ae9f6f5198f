package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultListen is where Serve listens when given no address: loopback
// only, port 9464.
const DefaultListen = "127.0.0.1:9464"

// Server timeouts.
const (
	defaultShutdownTimeout = 5 * time.Second
	readHeaderTimeout      = 10 * time.Second
	idleTimeout            = 60 * time.Second
)

// Server is an HTTP exporter: GET /metrics serves the metrics gathered from
// Gatherer, GET / a small page linking to it. A Server holds no resources
// between calls to Serve; everything Serve opens it closes before returning.
type Server struct {
	// Listen is the TCP address, host:port. Empty means DefaultListen, a
	// loopback address: the metrics name devices, accounts and traffic, so
	// they are not exposed beyond the machine unless the caller asks.
	// Any address the caller sets explicitly is used as given, including
	// non-loopback ones such as ":9464" or "0.0.0.0:9464" (Serve then logs a
	// warning); port 0 picks a free port, reported to ready.
	Listen string
	// Gatherer is the registry to serve; required.
	Gatherer prometheus.Gatherer
	// Logger receives gathering errors, HTTP server errors and the
	// non-loopback warning; nil means slog.Default().
	Logger *slog.Logger
	// ShutdownTimeout bounds the graceful shutdown once the context is done;
	// scrapes still running after it are cut off. Zero means 5 s.
	ShutdownTimeout time.Duration
}

// Serve listens on listen (DefaultListen when empty) and serves reg until
// ctx is done; see Server.Serve.
func Serve(ctx context.Context, listen string, reg prometheus.Gatherer, ready func(addr string)) error {
	s := &Server{Listen: listen, Gatherer: reg}
	return s.Serve(ctx, ready)
}

// Serve listens, calls ready (if not nil) with the address actually bound
// (useful with port 0), and serves until ctx is done. It then shuts down
// gracefully — stops accepting, waits up to ShutdownTimeout for scrapes in
// progress — and returns nil. ready runs on the caller's goroutine before
// Serve waits on ctx, so it should not block; connections arriving
// meanwhile queue on the listening socket.
//
// A listen failure (port in use, bad address, permission) is returned at
// once as an error naming the address and wrapping the *net.OpError, so
// errors.Is(err, syscall.EADDRINUSE) works. An error of the HTTP server
// itself is returned the same way.
func (s *Server) Serve(ctx context.Context, ready func(addr string)) error {
	if s.Gatherer == nil {
		return errors.New("metrics: Server has no Gatherer")
	}
	listen := s.Listen
	if listen == "" {
		listen = DefaultListen
	}
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", listen)
	if err != nil {
		return fmt.Errorf("metrics: cannot serve on %s: %w", listen, err)
	}
	addr := ln.Addr().String()
	if !isLoopback(ln.Addr()) {
		log.Warn("metrics: serving on a non-loopback address: anyone who can reach it can read the metrics", "addr", addr)
	}
	srv := &http.Server{
		Handler:           newMux(s.Gatherer, log),
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }() // srv.Serve closes ln
	if ready != nil {
		ready(addr)
	}
	select {
	case err := <-served:
		return fmt.Errorf("metrics: serving on %s: %w", addr, err)
	case <-ctx.Done():
	}
	timeout := s.ShutdownTimeout
	if timeout <= 0 {
		timeout = defaultShutdownTimeout
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err != nil {
		_ = srv.Close() // cut off the scrapes that outlived the timeout
	}
	<-served // http.ErrServerClosed once Shutdown or Close ran
	if err != nil {
		return fmt.Errorf("metrics: shutting down the server on %s: %w", addr, err)
	}
	return nil
}

// isLoopback reports whether a listener's address accepts loopback
// connections only. The unspecified address (":9464") is not loopback.
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
