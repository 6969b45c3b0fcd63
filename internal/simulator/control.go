package simulator

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"
)

// The mutations of transactions live in this file (creation in create.go),
// both for the control API (Go and HTTP, control_http.go) and for the API's
// write endpoints. Each create/settle/delete calls emit (webhooks.go) after
// releasing the lock, and each change bumps the data generation that
// invalidates cached pages (pagecache.go).

// Webhook event types (spec: Events).
const (
	eventCreated = "TRANSACTION_CREATED"
	eventSettled = "TRANSACTION_SETTLED"
	eventDeleted = "TRANSACTION_DELETED"
)

// controlGenerator returns a generator for control API defaults; b.mu is held.
func (b *Bank) controlGenerator(now time.Time) *generator {
	g := &generator{b: b, rng: b.rng, start: now, end: now}
	total := 0
	for _, m := range merchants {
		total += m.weight
		g.weights = append(g.weights, total)
	}
	return g
}

func dedupe(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Settle moves a HELD transaction to SETTLED. The settled amount may differ
// a little from the held one (exchange rate for foreign purchases, a tip at
// restaurants and pubs); holdInfo keeps the held amounts. Event:
// TRANSACTION_SETTLED, or, after SetSettleAsReplacement(true), the rare path
// of SettleAsReplacement (the transaction then changes id).
func (b *Bank) Settle(id string) error {
	if b.replaceOnSettle.Load() {
		if _, err := b.SettleAsReplacement(id); err != nil {
			return fmt.Errorf("settle %s: %w", id, errors.Unwrap(err))
		}
		return nil
	}
	b.mu.Lock()
	t, err := b.heldLocked(id)
	var account string
	if err == nil {
		b.settleLocked(t)
		account = t.AccountID
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("settle %s: %w", id, err)
	}
	b.emit(eventSettled, id, account)
	return nil
}

// heldLocked finds a HELD transaction; b.mu is held.
func (b *Bank) heldLocked(id string) (*txn, error) {
	t, ok := b.txByID[id]
	if !ok {
		return nil, ErrNotFound
	}
	if t.Status != "HELD" {
		return nil, ErrNotHeld
	}
	return t, nil
}

// settleLocked settles t in place; b.mu is held.
func (b *Bank) settleLocked(t *txn) {
	b.changedLocked()
	now := b.now().Round(0)
	if t.HoldInfo == nil {
		t.HoldInfo = &HoldInfo{Amount: t.Amount, ForeignAmount: clonePtr(t.ForeignAmount)}
	}
	old := t.Amount.ValueInBaseUnits
	switch {
	case t.ForeignAmount != nil:
		t.Amount.ValueInBaseUnits += old * int64(b.rng.IntN(5)-2) / 100 // up to ±2% exchange rate move
	case (t.CategoryID == "restaurants-and-cafes" || t.CategoryID == "pubs-and-bars") && b.rng.IntN(2) == 0:
		t.Amount.ValueInBaseUnits += old / 10 // 10% tip
	}
	b.accountByID[t.AccountID].Balance.ValueInBaseUnits += t.Amount.ValueInBaseUnits - old
	t.Status = "SETTLED"
	t.SettledAt = ptr(now)
	delete(b.held, t.ID)
	t.cache.Store(nil)
}

// SettleAsReplacement settles a HELD transaction the rare way: it is
// deleted and a new SETTLED transaction with a new id (created at Now())
// replaces it. Events: TRANSACTION_DELETED then TRANSACTION_CREATED.
func (b *Bank) SettleAsReplacement(id string) (string, error) {
	b.mu.Lock()
	old, err := b.heldLocked(id)
	var repl *txn
	if err == nil {
		repl = &txn{Transaction: old.clone()}
		b.removeLocked(old)
		repl.ID = newUUID(b.rng)
		repl.CreatedAt = b.now().Round(0)
		repl.HoldInfo = &HoldInfo{Amount: old.Amount, ForeignAmount: clonePtr(old.ForeignAmount)}
		if a, ok := b.attByID[old.AttachmentID]; ok {
			a.TransactionID = repl.ID
		}
		b.insertLocked(repl)
		b.settleLocked(repl)
	}
	b.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("settle %s as replacement: %w", id, err)
	}
	b.emit(eventDeleted, id, repl.AccountID)
	b.emit(eventCreated, repl.ID, repl.AccountID)
	return repl.ID, nil
}

// Delete removes a HELD transaction (e.g. a returned deposit). Event:
// TRANSACTION_DELETED.
func (b *Bank) Delete(id string) error { return b.deleteHeld(id, true) }

// DeleteWithoutEvent removes a HELD transaction and sends no event, as
// when the real bank's event is lost: only a full listing shows the
// deletion.
func (b *Bank) DeleteWithoutEvent(id string) error { return b.deleteHeld(id, false) }

func (b *Bank) deleteHeld(id string, event bool) error {
	b.mu.Lock()
	t, err := b.heldLocked(id)
	var account string
	if err == nil {
		if a, ok := b.attByID[t.AttachmentID]; ok {
			b.removeAttachmentLocked(a)
		}
		b.removeLocked(t)
		account = t.AccountID
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	if event {
		b.emit(eventDeleted, id, account)
	}
	return nil
}

// SetTags replaces a transaction's tags (at most 6, duplicates dropped)
// silently: no event, as in the real bank.
func (b *Bank) SetTags(id string, tags []string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.txByID[id]
	if !ok {
		return fmt.Errorf("set tags of %s: %w", id, ErrNotFound)
	}
	if err := b.setTagsLocked(t, tags); err != nil {
		return fmt.Errorf("set tags of %s: %w", id, err)
	}
	return nil
}

// SetCategory sets a child category, or "" to decategorize, silently.
func (b *Bank) SetCategory(id, categoryID string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.txByID[id]
	if !ok {
		return fmt.Errorf("set category of %s: %w", id, ErrNotFound)
	}
	if err := b.setCategoryLocked(t, categoryID); err != nil {
		return fmt.Errorf("set category of %s: %w", id, err)
	}
	return nil
}

// setTagsLocked replaces t's tags; b.mu is held.
func (b *Bank) setTagsLocked(t *txn, tags []string) error {
	tags = dedupe(tags)
	if len(tags) > 0 && b.jointTagless(t.AccountID) {
		return ErrJointTags
	}
	if len(tags) > maxTags {
		return ErrTooManyTags
	}
	if slices.Contains(tags, "") {
		return fmt.Errorf("empty tag label: %w", ErrInvalidTag)
	}
	b.changedLocked()
	b.countTags(t.AccountID, t.Tags, -1)
	t.Tags = tags
	b.countTags(t.AccountID, t.Tags, +1)
	t.cache.Store(nil)
	return nil
}

// setCategoryLocked categorizes t; b.mu is held.
func (b *Bank) setCategoryLocked(t *txn, categoryID string) error {
	if !t.IsCategorizable {
		return ErrNotCategorizable
	}
	parent := ""
	if categoryID != "" {
		c, ok := b.categoryMap[categoryID]
		if !ok || c.ParentID == "" {
			return fmt.Errorf("%q: %w", categoryID, ErrInvalidCategory)
		}
		parent = c.ParentID
	}
	b.changedLocked()
	t.CategoryID, t.ParentCategoryID = categoryID, parent
	t.cache.Store(nil)
	return nil
}

// countTags counts tags in use, in all and per account; b.mu is held.
func (b *Bank) countTags(account string, tags []string, delta int) {
	if len(tags) == 0 {
		return
	}
	per := b.accountTags[account]
	if per == nil {
		per = map[string]int{}
		b.accountTags[account] = per
	}
	for _, tag := range tags {
		b.tagCount[tag] += delta
		if b.tagCount[tag] <= 0 {
			delete(b.tagCount, tag)
		}
		per[tag] += delta
		if per[tag] <= 0 {
			delete(per, tag)
		}
	}
}

// insertLocked adds t at its sorted position; b.mu is held.
func (b *Bank) insertLocked(t *txn) {
	b.changedLocked()
	i := sort.Search(len(b.txs), func(i int) bool { return txBefore(&t.Transaction, &b.txs[i].Transaction) })
	b.txs = slices.Insert(b.txs, i, t)
	b.txByID[t.ID] = t
	if t.Status == "HELD" {
		b.held[t.ID] = t
	}
	b.countTags(t.AccountID, t.Tags, +1)
	b.accountByID[t.AccountID].Balance.ValueInBaseUnits += t.Amount.ValueInBaseUnits
}

// removeLocked deletes t; b.mu is held.
func (b *Bank) removeLocked(t *txn) {
	b.changedLocked()
	i := sort.Search(len(b.txs), func(i int) bool { return !txBefore(&b.txs[i].Transaction, &t.Transaction) })
	if i < len(b.txs) && b.txs[i] == t {
		b.txs = slices.Delete(b.txs, i, i+1)
	}
	delete(b.txByID, t.ID)
	delete(b.held, t.ID)
	b.countTags(t.AccountID, t.Tags, -1)
	b.accountByID[t.AccountID].Balance.ValueInBaseUnits -= t.Amount.ValueInBaseUnits
}

func (b *Bank) removeAttachmentLocked(a *Attachment) {
	b.changedLocked()
	b.attachments = slices.DeleteFunc(b.attachments, func(x *Attachment) bool { return x == a })
	delete(b.attByID, a.ID)
}
