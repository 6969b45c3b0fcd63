package ynab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A plan's copy is kept in the Opener only while a session uses it: at
// Close it is written to the feed's folder (<directory of the mirror>/
// feeds/NAME/ynab-plan-ID.json, mode 0600) and dropped from memory, and
// the next Open reads it back, so that a daemon with a YNAB feed holds no
// copy of the plan between rounds. The file is the rows as of its
// server_knowledge: the next session's delta from there brings it up to
// date, whichever process wrote it last. A file that cannot be read is
// no copy (the plan is read whole again).

// planFileName is the file of plan id's copy in dir, "" (no file) without
// a dir or for an id that is not a plain UUID: the id comes from the
// server, and names a file only when it cannot name another folder.
func planFileName(dir, id string) string {
	if dir == "" || id == "" || len(id) > 64 || strings.Trim(id, "0123456789abcdefABCDEF-") != "" {
		return ""
	}
	return filepath.Join(dir, "ynab-plan-"+id+".json")
}

// planFile is a plan's copy as written.
type planFile struct {
	Since     string    `json:"since"`
	Knowledge int64     `json:"server_knowledge"`
	Rows      []rowFile `json:"rows"`
}

type rowFile struct {
	ID              string `json:"id"`
	Account         string `json:"account"`
	ImportID        string `json:"import_id,omitempty"`
	Date            string `json:"date"`
	Amount          int64  `json:"amount"`
	Cleared         string `json:"cleared"`
	TransferAccount string `json:"transfer_account,omitempty"`
	TransferTx      string `json:"transfer_tx,omitempty"`
	Payee           string `json:"payee,omitempty"`
	Category        string `json:"category,omitempty"`
	Memo            string `json:"memo,omitempty"`
	Deleted         bool   `json:"deleted,omitempty"`
}

// load reads the copy from p.file; none there leaves p empty.
func (p *planCache) load() error {
	b, err := os.ReadFile(p.file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the plan's copy: %w", err)
	}
	var f planFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("read the plan's copy %s: %w", p.file, err)
	}
	for _, r := range f.Rows {
		p.put(&row{id: r.ID, account: r.Account, importID: r.ImportID, date: r.Date, amount: r.Amount, cleared: r.Cleared,
			transferAccount: r.TransferAccount, transferTx: r.TransferTx, payee: r.Payee, category: r.Category, memo: r.Memo,
			deleted: r.Deleted})
	}
	p.filled, p.since, p.knowledge, p.changed = true, f.Since, f.Knowledge, false
	return nil
}

// save writes the copy to p.file (a new file renamed over the old).
func (p *planCache) save() error {
	f := planFile{Since: p.since, Knowledge: p.knowledge, Rows: make([]rowFile, 0, len(p.rows))}
	for _, r := range p.rows {
		f.Rows = append(f.Rows, rowFile{ID: r.id, Account: r.account, ImportID: r.importID, Date: r.date, Amount: r.amount,
			Cleared: r.cleared, TransferAccount: r.transferAccount, TransferTx: r.transferTx, Payee: r.payee,
			Category: r.category, Memo: r.memo, Deleted: r.deleted})
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("write the plan's copy: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p.file), 0o700); err != nil {
		return fmt.Errorf("write the plan's copy: %w", err)
	}
	// A temporary file of its own (mode 0600): feeds check and a push of
	// another process may write the same copy at once.
	tmp, err := os.CreateTemp(filepath.Dir(p.file), "ynab-plan-*.tmp")
	if err != nil {
		return fmt.Errorf("write the plan's copy: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p.file)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write the plan's copy: %w", err)
	}
	p.changed = false
	return nil
}

// spill writes st to its file, when it has one and was filled, and drops
// it from the Opener: the next Open reads it back. A copy that cannot be
// written is dropped as well (the next session reads the plan whole).
func (o *Opener) spill(pk string, st *planCache) error {
	if st.file == "" {
		return nil
	}
	st.mu.Lock()
	var err error
	if st.filled && st.changed {
		err = st.save()
	} else if !st.filled {
		err = os.Remove(st.file)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	}
	st.mu.Unlock()
	o.mu.Lock()
	if o.plans[pk] == st {
		delete(o.plans, pk)
	}
	o.mu.Unlock()
	return err
}
