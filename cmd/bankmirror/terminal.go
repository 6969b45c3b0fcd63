package main

import (
	"io"
	"sync"
)

// statusLine is stderr on a terminal with a status line (a sync's
// progress) redrawn at its bottom. Everything else written to it, the log's
// lines, goes above the status line: the line is cleared first and drawn
// again after, so that the two never run together.
type statusLine struct {
	mu   sync.Mutex
	w    io.Writer
	line string // shown now; "" when none
}

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\033[K"

// Write writes p, whole lines, above the status line.
func (s *statusLine) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.line == "" {
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, clearLine); err != nil {
		return 0, err
	}
	n, err := s.w.Write(p)
	if err == nil {
		_, err = io.WriteString(s.w, s.line)
	}
	return n, err
}

// set shows line as the status line, in place of the previous one.
func (s *statusLine) set(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.line = line
	_, _ = io.WriteString(s.w, clearLine+line)
}

// clear removes the status line.
func (s *statusLine) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.line != "" {
		_, _ = io.WriteString(s.w, clearLine)
	}
	s.line = ""
}
