package receiver

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// smallBody is the size of the first buffer a body is read into. Real
// events are under 1 KiB, so nearly every body fits; a body that does not
// moves to a buffer of MaxBody+1 bytes. A connection trickling its body
// therefore holds 4 KiB until it has actually sent 4 KiB.
const smallBody = 4 << 10

// smallBufs holds *[]byte of smallBody bytes.
var smallBufs = sync.Pool{New: func() any {
	b := make([]byte, smallBody)
	return &b
}}

// body is a request body read into pooled buffers; free returns them.
type body struct {
	b            []byte
	small, large *[]byte
	pool         *sync.Pool    // where large goes back
	larges       chan struct{} // holds a token while large is out
}

func (b *body) free() {
	if b.small != nil {
		smallBufs.Put(b.small)
	}
	if b.large != nil {
		b.pool.Put(b.large)
		<-b.larges
	}
	*b = body{}
}

// readBody reads the whole body, at most MaxBody bytes, under a read
// deadline BodyTimeout away. A declared length over the limit is refused
// before a byte is read; an undeclared one as soon as the limit is passed
// (at most MaxBody+1 bytes are read). A refusal with a reason means the
// body was not read; the buffers are then already back in their pools.
func (r *Receiver) readBody(w http.ResponseWriter, req *http.Request) (*body, refusal) {
	limit := r.cfg.MaxBody
	if req.ContentLength > limit {
		return nil, refusal{reason: ReasonBodyTooLarge, status: http.StatusRequestEntityTooLarge}
	}
	rc := http.NewResponseController(w)
	// A writer without a connection (httptest's recorder) has no deadline
	// to set; the server's ReadTimeout still bounds a real one. On a
	// refusal the deadline stays: what the server reads of the body after
	// the handler (it drains up to 256 KiB) is bounded by it too.
	deadline := rc.SetReadDeadline(time.Now().Add(r.cfg.BodyTimeout)) == nil
	most := int(limit) + 1
	b := &body{small: smallBufs.Get().(*[]byte), pool: &r.large, larges: r.larges}
	buf := (*b.small)[:0]
	for {
		if len(buf) == cap(buf) {
			// Only a body over smallBody gets here (the small buffer is
			// full and the limit not passed yet). Strangers can send such
			// bodies on many connections at once: the large buffers are
			// capped, and a body finding none free is refused.
			select {
			case r.larges <- struct{}{}:
			default:
				b.free()
				return nil, refusal{reason: ReasonOverloaded, status: http.StatusServiceUnavailable}
			}
			b.large = r.large.Get().(*[]byte)
			buf = append((*b.large)[:0], buf...)
		}
		n, err := req.Body.Read(buf[len(buf):min(cap(buf), most)])
		buf = buf[:len(buf)+n]
		if len(buf) > int(limit) {
			b.free()
			return nil, refusal{reason: ReasonBodyTooLarge, status: http.StatusRequestEntityTooLarge}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.free()
			if isTimeout(err) {
				return nil, refusal{reason: ReasonBodyTimeout, status: http.StatusRequestTimeout}
			}
			return nil, refusal{reason: ReasonBodyIncomplete, status: http.StatusBadRequest, cause: err}
		}
	}
	b.b = buf
	if deadline {
		// The commit wait comes next, with no read deadline: once the
		// body is read the server watches the connection with a read of
		// its own, and a deadline passing there would cancel the request's
		// context.
		_ = rc.SetReadDeadline(time.Time{})
	}
	return b, refusal{}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
