package httpserver

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// connKey is the request context's key for the *limitConn the request
// came on (set by Start when it hooks a LimitListener).
type connKey struct{}

// watchBodies gives every request with a body a read deadline timeout
// after its headers, and tells the LimitListener the request came through
// (if any) that its connection is reading a body until the body ends: at
// the cap, the connection reading its body the longest is closed for a
// new one. net/http lifts the deadline itself when the body ends (it
// watches the connection from then on), so a handler working longer after
// reading the body is not cut.
func watchBodies(h http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		// A writer without a connection (a recorder) has no deadline to
		// set; the server's ReadTimeout bounds a real one.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
		if c, ok := r.Context().Value(connKey{}).(*limitConn); ok {
			c.l.reading(c)
			r.Body = &watchedBody{ReadCloser: r.Body, conn: c}
		}
		h.ServeHTTP(w, r)
	})
}

// watchedBody is a request body that tells its connection's listener when
// it ends.
type watchedBody struct {
	io.ReadCloser
	conn *limitConn
	once sync.Once
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.once.Do(func() { b.conn.l.doneReading(b.conn) })
	}
	return n, err
}
