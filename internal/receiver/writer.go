package receiver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

// request is one event waiting for its commit.
type request struct {
	ctx   context.Context
	ev    store.InboxEvent
	reply chan error // buffered: the writer never blocks on it
}

// groupWriter is the single writer of verified events: concurrent
// deliveries queue their events, and each commit stores all that are
// queued in one transaction (group commit), so a burst pays a few fsyncs,
// not one each.
type groupWriter struct {
	in     inbox
	notify func(ids []string) // Config.Notify; may be nil
	log    zerolog.Logger

	queue   chan *request
	stop    chan struct{} // closed by close
	done    chan struct{} // closed when the writer has exited
	started atomic.Bool
	mu      sync.Mutex // serialises start and close
	closed  bool
}

var _ eventWriter = (*groupWriter)(nil)

func newGroupWriter(in inbox, notify func(ids []string), log zerolog.Logger) *groupWriter {
	return &groupWriter{
		in:     in,
		notify: notify,
		log:    log,
		queue:  make(chan *request, maxBatch),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
}

// start runs the writer goroutine until ctx ends or close is called.
func (g *groupWriter) start(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	if g.started.Load() {
		return errors.New("receiver already started")
	}
	g.started.Store(true)
	go g.run(ctx)
	return nil
}

// close stops the writer and waits for it (see Receiver.Close).
func (g *groupWriter) close() {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		close(g.stop)
	}
	started := g.started.Load()
	g.mu.Unlock()
	if started {
		<-g.done
	}
}

// run is the single writer: it takes the first queued request, drains what
// else is already queued (no waiting window), commits them together and
// answers them all.
func (g *groupWriter) run(ctx context.Context) {
	defer close(g.done)
	defer g.failQueued()
	batch := make([]*request, 0, maxBatch)
	for {
		// Stopping wins over queued work: close answers the queue with 503.
		select {
		case <-g.stop:
			return
		default:
		}
		select {
		case <-ctx.Done():
			return
		case <-g.stop:
			return
		case req := <-g.queue:
			batch = append(batch[:0], req)
		drain:
			for len(batch) < maxBatch {
				select {
				case req := <-g.queue:
					batch = append(batch, req)
				default:
					break drain
				}
			}
			g.commit(ctx, batch)
			clear(batch) // drop references to bodies
		}
	}
}

// commit stores the batch in one transaction and answers each request.
// Requests whose client has gone are dropped before the insert: they were
// never acknowledged, so the bank will send them again.
func (g *groupWriter) commit(ctx context.Context, batch []*request) {
	evs := make([]store.InboxEvent, 0, len(batch))
	live := batch[:0]
	for _, req := range batch {
		if err := req.ctx.Err(); err != nil {
			req.reply <- err
			continue
		}
		evs = append(evs, req.ev)
		live = append(live, req)
	}
	if len(evs) == 0 {
		return
	}
	inserted, err := g.in.InsertEvents(ctx, evs)
	for _, req := range live {
		req.reply <- err
	}
	if err != nil {
		g.log.Error().Err(err).Int(logfield.Batch, len(evs)).Msg("store webhook events")
		return
	}
	g.log.Debug().Int(logfield.Batch, len(evs)).Int(logfield.Inserted, len(inserted)).Msg("committed webhook events")
	if len(inserted) > 0 && g.notify != nil {
		g.notify(inserted)
	}
}

// failQueued answers every request still queued when the writer exits.
func (g *groupWriter) failQueued() {
	for {
		select {
		case req := <-g.queue:
			req.reply <- ErrClosed
		default:
			return
		}
	}
}

// store hands ev to the writer and waits until the commit holding it
// returns. A nil result means the event is durable.
func (g *groupWriter) store(ctx context.Context, ev store.InboxEvent) error {
	if !g.started.Load() {
		return errors.New("receiver not started")
	}
	req := &request{ctx: ctx, ev: ev, reply: make(chan error, 1)}
	select {
	case g.queue <- req:
	case <-g.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("queue event: %w", ctx.Err())
	}
	select {
	case err := <-req.reply:
		return err
	case <-g.done:
		// The writer answers before it exits: a reply may be waiting.
		select {
		case err := <-req.reply:
			return err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		return fmt.Errorf("wait for commit: %w", ctx.Err())
	}
}
