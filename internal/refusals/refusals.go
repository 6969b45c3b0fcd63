// Package refusals keeps refused requests from flooding the log. The first
// refusal of each reason is logged in full, by the caller, who knows its
// details; the ones after it are counted and reported in one summary line
// per interval while they keep coming. After an interval without a
// refusal, the next one of any reason is logged in full again. A flood of
// refused requests thus writes a line or two an interval, whatever its
// rate. The webhook receiver and tokencheck (the export feed and the
// dashboard) use it.
package refusals

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
)

// Options configure a Counter.
type Options struct {
	Log zerolog.Logger
	// Level is the summary's level. Its zero value is zerolog.DebugLevel:
	// set it.
	Level zerolog.Level
	// Every is the interval between summaries (a minute if <= 0).
	Every time.Duration
	// Reasons orders the summary's counts; a reason not listed comes after
	// those listed, in sorted order.
	Reasons []string
	// Message is the summary's message.
	Message string
}

// Counter counts refusals and writes their summaries.
type Counter struct {
	o Options

	mu     sync.Mutex
	full   map[string]bool // reasons logged in full since the counter was last quiet
	counts map[string]int  // refusals since the last summary, not logged in full
	timer  *time.Timer     // the next summary; nil while quiet
	gen    uint64          // which timer is current; a stale one does nothing
}

// New returns a Counter; Flush it when done.
func New(o Options) *Counter {
	if o.Every <= 0 {
		o.Every = time.Minute
	}
	return &Counter{o: o, full: map[string]bool{}, counts: map[string]int{}}
}

// Every is the interval between summaries.
func (l *Counter) Every() time.Duration { return l.o.Every }

// Note counts a refusal for reason. It reports whether the caller is to log
// this one in full: the first of its reason since the counter was last quiet.
// The others are counted for the next summary.
func (l *Counter) Note(reason string) (logFull bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := !l.full[reason]
	if first {
		l.full[reason] = true
	} else {
		l.counts[reason]++
	}
	if l.timer == nil {
		// The callback gets its generation by value: it must not read a
		// variable this goroutine writes after AfterFunc returns.
		l.gen++
		gen := l.gen
		l.timer = time.AfterFunc(l.o.Every, func() { l.tick(gen) })
	}
	return first
}

// Quiet reports whether no refusal came in the last interval (no summary
// is pending).
func (l *Counter) Quiet() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.timer == nil
}

// tick writes the summary of the interval that timer gen closes, or goes
// quiet.
func (l *Counter) tick(gen uint64) {
	l.mu.Lock()
	if l.timer == nil || l.gen != gen { // flushed meanwhile
		l.mu.Unlock()
		return
	}
	counts := l.counts
	if len(counts) == 0 {
		l.timer = nil
		clear(l.full)
		l.mu.Unlock()
		return
	}
	l.counts = map[string]int{}
	l.timer.Reset(l.o.Every)
	l.mu.Unlock()
	l.summary(counts)
}

// Flush writes the refusals not reported yet and goes quiet (at shutdown).
func (l *Counter) Flush() {
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	counts := l.counts
	l.counts = map[string]int{}
	clear(l.full)
	l.mu.Unlock()
	l.summary(counts)
}

func (l *Counter) summary(counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	d := zerolog.Dict()
	total := 0
	for _, r := range l.o.Reasons {
		if n := counts[r]; n > 0 {
			d = d.Int(r, n)
			total += n
			delete(counts, r)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(counts)) {
		d = d.Int(r, counts[r])
		total += counts[r]
	}
	l.o.Log.WithLevel(l.o.Level).Dict(logfield.Refused, d).Int(logfield.Total, total).Str(logfield.Interval, l.o.Every.String()).Msg(l.o.Message)
}
