package simulator

import (
	"net/http"
	"slices"
	"time"
)

// APIWrite is a change a client made through the API (a write-back): a
// category set or removed, tags added or removed. The control API's own
// changes (the customer's app) are not in it.
type APIWrite struct {
	At            time.Time
	Person        string // whose token made it
	TransactionID string
	Op            string   // "category", "tags add" or "tags remove"
	CategoryID    string   // op category: the new category, "" removed
	Tags          []string // tags ops: the labels sent
}

// maxAPIWrites bounds the log; the oldest go first.
const maxAPIWrites = 10_000

// writeLog is the bank's record of API writes, guarded by Bank.mu.
type writeLog struct{ writes []APIWrite }

// recordWriteLocked appends w; b.mu is held.
func (b *Bank) recordWriteLocked(w APIWrite) {
	w.At = b.now()
	l := &b.writeLog
	if len(l.writes) >= maxAPIWrites {
		l.writes = slices.Delete(l.writes, 0, len(l.writes)-maxAPIWrites+1)
	}
	l.writes = append(l.writes, w)
}

// APIWrites returns the writes clients made through the API, oldest
// first (at most the newest 10,000).
func (b *Bank) APIWrites() []APIWrite {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]APIWrite, len(b.writeLog.writes))
	for i, w := range b.writeLog.writes {
		w.Tags = slices.Clone(w.Tags)
		out[i] = w
	}
	return out
}

// apiWriteJSON is an API write on the control API.
type apiWriteJSON struct {
	At            string   `json:"at"`
	Person        string   `json:"person"`
	TransactionID string   `json:"transactionId"`
	Op            string   `json:"op"`
	CategoryID    *string  `json:"categoryId,omitempty"`
	Tags          []string `json:"tags,omitempty"`
}

// ctlWrites is GET /_sim/writes[?transaction=ID]: the write-backs clients
// made, oldest first.
func (b *Bank) ctlWrites(w http.ResponseWriter, r *http.Request, _ []string) error {
	tx := r.URL.Query().Get("transaction")
	out := []apiWriteJSON{}
	for _, a := range b.APIWrites() {
		if tx != "" && a.TransactionID != tx {
			continue
		}
		j := apiWriteJSON{At: a.At.UTC().Format(time.RFC3339Nano), Person: a.Person, TransactionID: a.TransactionID, Op: a.Op, Tags: a.Tags}
		if a.Op == "category" {
			c := a.CategoryID
			j.CategoryID = &c
		}
		out = append(out, j)
	}
	return writeControlJSON(w, http.StatusOK, map[string]any{"data": out})
}
