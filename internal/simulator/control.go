package simulator

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"
)

// All mutations of transactions live in this file, both for the control
// API and for the HTTP write endpoints. Each create/settle/delete calls emit
// (webhooks.go) after releasing the lock.

// Webhook event types (spec: Events).
const (
	eventCreated = "TRANSACTION_CREATED"
	eventSettled = "TRANSACTION_SETTLED"
	eventDeleted = "TRANSACTION_DELETED"
)

// NewTransaction describes a transaction for AddTransaction. Zero values
// get defaults from the bank's rng: a random merchant, amount and
// category; "" AccountID is the main transactional account ("Spending").
type NewTransaction struct {
	AccountID       string
	Description     string
	AmountBaseUnits int64 // AUD cents; negative = money out
	Held            bool
	CategoryID      string // child category; "" = the default merchant's category (uncategorized if Description is set)
	Tags            []string
	Foreign         bool // charged in USD
}

// AddTransaction creates a transaction at Now() and returns its id. It
// panics on an unknown account or category or more than 6 tags, which are
// errors in the calling test.
func (b *Bank) AddTransaction(nt NewTransaction) string {
	b.mu.Lock()
	t := b.buildTransaction(nt)
	b.insertLocked(t)
	b.mu.Unlock()
	b.emit(eventCreated, t.ID)
	return t.ID
}

// buildTransaction turns nt into a transaction; b.mu is held.
func (b *Bank) buildTransaction(nt NewTransaction) *txn {
	now := b.now().Round(0) // wall clock only: keys and ordering use it
	g := b.controlGenerator(now)
	if nt.AccountID == "" {
		nt.AccountID = b.mainAccount
	}
	acc, ok := b.accountByID[nt.AccountID]
	if !ok {
		panic(fmt.Sprintf("simulator: AddTransaction: unknown account %q", nt.AccountID))
	}
	tags := dedupe(nt.Tags)
	if len(tags) > maxTags {
		panic("simulator: AddTransaction: more than 6 tags")
	}
	m := g.pickMerchant()
	if nt.Description == "" {
		nt.Description = m.name
		if nt.CategoryID == "" {
			nt.CategoryID = m.category
		}
	}
	if nt.AmountBaseUnits == 0 {
		nt.AmountBaseUnits = -g.between(m.min, m.max)
	}
	t := g.newTxn(acc.ID, now, nt.Description, nt.AmountBaseUnits)
	t.IsCategorizable = true
	if nt.CategoryID != "" {
		c, ok := b.categoryMap[nt.CategoryID]
		if !ok || c.ParentID == "" {
			panic(fmt.Sprintf("simulator: AddTransaction: %q is not a child category", nt.CategoryID))
		}
		t.CategoryID, t.ParentCategoryID = c.ID, c.ParentID
	}
	t.Tags = tags
	if nt.AmountBaseUnits < 0 {
		b.makeCardPurchase(g, t, acc)
	} else {
		t.TransactionType = ptr("Deposit")
	}
	if nt.Foreign {
		t.ForeignAmount = g.foreignMoney(nt.AmountBaseUnits, 0)
		t.RawText = ptr(nt.Description + ", SAN FRANCISCO USA")
	}
	if nt.Held {
		t.Status, t.SettledAt = "HELD", nil
		t.HoldInfo = &HoldInfo{Amount: t.Amount, ForeignAmount: clonePtr(t.ForeignAmount)}
	}
	return t
}

// makeCardPurchase gives t a card, a performing customer and raw text.
func (b *Bank) makeCardPurchase(g *generator, t *txn, acc *Account) {
	person := primaryPerson
	if acc.OwnershipType == "JOINT" {
		person = pick(g, b.jointPeople)
	}
	t.PerformingCustomer = ptr(person)
	t.CardPurchaseMethod = &CardPurchaseMethod{Method: "CONTACTLESS", CardNumberSuffix: ptr("4821")}
	t.RawText = ptr(t.Description)
}

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
	if err == nil {
		b.settleLocked(t)
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("settle %s: %w", id, err)
	}
	b.emit(eventSettled, id)
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
		repl = &txn{Transaction: old.Transaction.clone()}
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
	b.emit(eventDeleted, id)
	b.emit(eventCreated, repl.ID)
	return repl.ID, nil
}

// Delete removes a HELD transaction (e.g. a returned deposit).
func (b *Bank) Delete(id string) error {
	b.mu.Lock()
	t, err := b.heldLocked(id)
	if err == nil {
		if a, ok := b.attByID[t.AttachmentID]; ok {
			b.removeAttachmentLocked(a)
		}
		b.removeLocked(t)
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	b.emit(eventDeleted, id)
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
	b.changedLocked()
	tags = dedupe(tags)
	if len(tags) > maxTags {
		return ErrTooManyTags
	}
	if slices.Contains(tags, "") {
		return fmt.Errorf("empty tag label: %w", ErrInvalidTag)
	}
	b.countTags(t.Tags, -1)
	t.Tags = tags
	b.countTags(t.Tags, +1)
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

func (b *Bank) countTags(tags []string, delta int) {
	for _, tag := range tags {
		b.tagCount[tag] += delta
		if b.tagCount[tag] <= 0 {
			delete(b.tagCount, tag)
		}
	}
}

// insertLocked adds t at its sorted position; b.mu is held.
func (b *Bank) insertLocked(t *txn) {
	b.changedLocked()
	i := sort.Search(len(b.txs), func(i int) bool { return txBefore(&t.Transaction, &b.txs[i].Transaction) })
	b.txs = slices.Insert(b.txs, i, t)
	b.txByID[t.ID] = t
	b.countTags(t.Tags, +1)
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
	b.countTags(t.Tags, -1)
	b.accountByID[t.AccountID].Balance.ValueInBaseUnits -= t.Amount.ValueInBaseUnits
}

func (b *Bank) removeAttachmentLocked(a *Attachment) {
	b.changedLocked()
	b.attachments = slices.DeleteFunc(b.attachments, func(x *Attachment) bool { return x == a })
	delete(b.attByID, a.ID)
}
