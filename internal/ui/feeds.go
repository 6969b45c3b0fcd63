package ui

import (
	"encoding/json"
	"net/http"

	"github.com/bankmirror/bankmirror/internal/feeds"
)

// feedRow is a feed as the feeds page shows it.
type feedRow struct {
	Name, Kind, Budget     string
	LastPush, LastCheck    string
	Check, Error, Failing  string
	NextAttempt            string
	Rows, Pending, Deleted int64
}

// feeds is /feeds: each feed of the feeds file (BANKMIRROR_FEEDS_FILE,
// read at each visit) with its last push, what is pending, its error and
// its last check, and for a failing feed when it is tried next. Read-only: `bankmirror feeds push NAME` and `feeds
// check NAME` act.
func (h *Handler) feeds(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var rows []feedRow
	var fileErr string
	path := h.o.FeedsFile
	if path != "" {
		f, err := feeds.Read(path, !h.o.FeedsFileSet)
		if err != nil {
			fileErr = err.Error()
		} else {
			list, err := h.m.FeedStatuses(ctx, f.Names())
			if err != nil {
				h.fail(w, r, err)
				return
			}
			for i, s := range list {
				fd := f.Feeds[i]
				row := feedRow{Name: fd.Name, Kind: fd.Kind, Budget: fd.Budget, Rows: s.Rows, Pending: s.Pending,
					Deleted: s.DeletedInApp, Error: s.LastError}
				if s.LastPushAt != "" {
					row.LastPush = h.localStamp(s.LastPushAt)
				}
				if s.FailingSince != "" {
					row.Failing = h.localStamp(s.FailingSince)
				}
				if s.LastError != "" && s.NextAttemptAt != "" {
					row.NextAttempt = h.localStamp(s.NextAttemptAt)
				}
				if s.LastCheckAt != "" {
					row.LastCheck = h.localStamp(s.LastCheckAt)
					var c struct {
						Summary string `json:"summary"`
					}
					if json.Unmarshal([]byte(s.LastCheck), &c) == nil {
						row.Check = c.Summary
					}
				}
				rows = append(rows, row)
			}
		}
	}
	h.render(w, r, http.StatusOK, "feeds", "Feeds", struct {
		Path, FileError string
		Feeds           []feedRow
	}{path, fileErr, rows})
}
