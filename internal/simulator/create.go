package simulator

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// NewTransaction describes a transaction for CreateTransaction and
// AddTransaction. Zero values get defaults from the bank's rng: a random
// merchant, amount and category; "" AccountID is the main transactional
// account ("Spending"). Every field of a TransactionResource can be set.
type NewTransaction struct {
	AccountID       string
	Description     string
	AmountBaseUnits int64 // AUD cents; negative = money out
	Held            bool
	CategoryID      string // child category; "" = the default merchant's category (uncategorized if Description is set)
	Tags            []string
	Foreign         bool // charged in USD (see ForeignAmount for another currency)

	CreatedAt          time.Time           // zero = the bank's Now()
	ForeignAmount      *Money              // charged in this currency; implies Foreign
	RawText            *string             // nil = derived from the description
	Message            *string             // payment message or transfer note
	Note               *string             // customer's note
	TransactionType    *string             // nil = derived ("Purchase"-like for card purchases, "Deposit" for money in)
	PerformingCustomer *string             // nil = derived (the cardholder of a purchase)
	CardPurchaseMethod *CardPurchaseMethod // nil = contactless with the account's card for money out
	RoundUp            *RoundUp            // negative amounts
	Cashback           *Cashback           // positive amount
	Attachment         string              // a receipt of this content type: image/jpeg, image/png or application/pdf
	NotCategorizable   bool                // isCategorizable false (transfers always are)
	// Person is who makes it, a name of Options.People ("bobby" in a
	// household of one): performingCustomer is their display name and a
	// card purchase is made with their card; "" AccountID is their
	// Spending account, and they must see AccountID. "" = the owner of
	// an individual account, one of the people at random on the joint one.
	Person string
	// TransferAccountID makes a transfer between two of the customer's
	// accounts: this transaction in AccountID and its opposite in
	// TransferAccountID, pointing at each other. AmountBaseUnits is the
	// amount seen from AccountID (negative: money goes to TransferAccountID).
	TransferAccountID string
}

// attachmentKinds maps the content types of receipts to file extensions.
var attachmentKinds = map[string]string{"image/jpeg": "jpg", "image/png": "png", "application/pdf": "pdf"}

// AddTransaction is CreateTransaction for tests: it returns the (first)
// id and panics on an error, which is an error in the calling test.
func (b *Bank) AddTransaction(nt NewTransaction) string {
	ids, err := b.CreateTransaction(nt)
	if err != nil {
		panic("simulator: AddTransaction: " + err.Error())
	}
	return ids[0]
}

// CreateTransaction creates a transaction (two for a transfer, the one in
// AccountID first) and returns the ids. Event: TRANSACTION_CREATED for
// each.
func (b *Bank) CreateTransaction(nt NewTransaction) ([]string, error) {
	b.mu.Lock()
	ts, att, err := b.buildTransactions(nt)
	if err == nil {
		for _, t := range ts {
			b.insertLocked(t)
		}
		if att != nil {
			b.insertAttachmentLocked(att)
		}
	}
	b.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("create transaction: %w", err)
	}
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
		b.emit(eventCreated, t.ID, t.AccountID)
	}
	return ids, nil
}

// buildTransactions turns nt into one transaction, or two for a transfer,
// and its attachment if any; b.mu is held.
func (b *Bank) buildTransactions(nt NewTransaction) ([]*txn, *Attachment, error) {
	now := b.now().Round(0) // wall clock only: keys and ordering use it
	at := nt.CreatedAt.Round(0)
	if at.IsZero() {
		at = now
	}
	g := b.controlGenerator(now)
	var who *person
	if nt.Person != "" {
		var err error
		if who, err = b.personNamed(nt.Person); err != nil {
			return nil, nil, err
		}
		nt.AccountID = cmp.Or(nt.AccountID, who.own[0])
	}
	if nt.AccountID == "" {
		nt.AccountID = b.mainAccount
	}
	acc, ok := b.accountByID[nt.AccountID]
	if !ok {
		return nil, nil, fmt.Errorf("%q: %w", nt.AccountID, ErrUnknownAccount)
	}
	for _, id := range []string{nt.AccountID, nt.TransferAccountID} {
		if who != nil && id != "" && !who.canSee(id) {
			return nil, nil, fmt.Errorf("%q is not an account of %s: %w", id, who.name, ErrUnknownAccount)
		}
	}
	if len(nt.Tags) > 0 && b.jointTagless(nt.AccountID) {
		return nil, nil, ErrJointTags
	}
	tags := dedupe(nt.Tags)
	if len(tags) > maxTags {
		return nil, nil, ErrTooManyTags
	}
	if slices.Contains(tags, "") {
		return nil, nil, fmt.Errorf("empty tag label: %w", ErrInvalidTag)
	}
	if _, ok := attachmentKinds[nt.Attachment]; nt.Attachment != "" && !ok {
		return nil, nil, fmt.Errorf("%q: %w", nt.Attachment, ErrInvalidAttachment)
	}
	if nt.TransferAccountID != "" {
		ts, err := b.buildTransfer(g, nt, at, who)
		return ts, nil, err
	}
	m := g.pickMerchant()
	if nt.Description == "" {
		nt.Description = m.name
		if nt.CategoryID == "" && !nt.NotCategorizable {
			nt.CategoryID = m.category
		}
	}
	if nt.AmountBaseUnits == 0 {
		nt.AmountBaseUnits = -g.between(m.min, m.max)
	}
	t := g.newTxn(acc.ID, at, nt.Description, nt.AmountBaseUnits)
	t.IsCategorizable = !nt.NotCategorizable
	if nt.CategoryID != "" {
		c, ok := b.categoryMap[nt.CategoryID]
		if !ok || c.ParentID == "" {
			return nil, nil, fmt.Errorf("%q: %w", nt.CategoryID, ErrInvalidCategory)
		}
		if !t.IsCategorizable {
			return nil, nil, ErrNotCategorizable
		}
		t.CategoryID, t.ParentCategoryID = c.ID, c.ParentID
	}
	t.Tags = tags
	if nt.AmountBaseUnits < 0 {
		b.makeCardPurchase(g, t, acc, who)
	} else {
		t.TransactionType = ptr("Deposit")
	}
	switch {
	case nt.ForeignAmount != nil:
		t.ForeignAmount = clonePtr(nt.ForeignAmount)
		t.RawText = ptr(nt.Description + ", OVERSEAS")
	case nt.Foreign:
		t.ForeignAmount = g.foreignMoney(nt.AmountBaseUnits, 0)
		t.RawText = ptr(nt.Description + ", SAN FRANCISCO USA")
	}
	applyOverrides(t, nt)
	if nt.Held {
		t.Status, t.SettledAt = "HELD", nil
		t.HoldInfo = &HoldInfo{Amount: t.Amount, ForeignAmount: clonePtr(t.ForeignAmount)}
	}
	var att *Attachment
	if nt.Attachment != "" {
		att = &Attachment{ID: newUUID(b.rng), TransactionID: t.ID, CreatedAt: at,
			FileExtension: attachmentKinds[nt.Attachment], FileContentType: nt.Attachment}
		t.AttachmentID = att.ID
	}
	return []*txn{t}, att, nil
}

// applyOverrides copies the optional fields nt sets onto t.
func applyOverrides(t *txn, nt NewTransaction) {
	set := func(dst **string, v *string) {
		if v != nil {
			*dst = clonePtr(v)
		}
	}
	set(&t.RawText, nt.RawText)
	set(&t.Message, nt.Message)
	set(&t.Note, nt.Note)
	set(&t.TransactionType, nt.TransactionType)
	set(&t.PerformingCustomer, nt.PerformingCustomer)
	if nt.CardPurchaseMethod != nil {
		t.CardPurchaseMethod = &CardPurchaseMethod{Method: nt.CardPurchaseMethod.Method, CardNumberSuffix: clonePtr(nt.CardPurchaseMethod.CardNumberSuffix)}
	}
	if nt.RoundUp != nil {
		t.RoundUp = &RoundUp{Amount: nt.RoundUp.Amount, BoostPortion: clonePtr(nt.RoundUp.BoostPortion)}
	}
	if nt.Cashback != nil {
		cb := *nt.Cashback
		t.Cashback = &cb
	}
}

// buildTransfer makes the two sides of a transfer; b.mu is held.
func (b *Bank) buildTransfer(g *generator, nt NewTransaction, at time.Time, who *person) ([]*txn, error) {
	to, ok := b.accountByID[nt.TransferAccountID]
	switch {
	case !ok:
		return nil, fmt.Errorf("transfer account %q: %w", nt.TransferAccountID, ErrUnknownAccount)
	case to.ID == nt.AccountID:
		return nil, fmt.Errorf("a transfer needs another account: %w", ErrInvalidTransfer)
	case nt.CategoryID != "":
		return nil, ErrNotCategorizable
	case nt.Held || nt.Attachment != "" || nt.Foreign || nt.ForeignAmount != nil:
		// Transfers between own accounts settle at once, in AUD, with no
		// receipt: refuse rather than silently drop what was asked for.
		return nil, fmt.Errorf("a transfer cannot be held, foreign or carry an attachment: %w", ErrInvalidTransfer)
	}
	amount := nt.AmountBaseUnits
	if amount == 0 {
		amount = -g.between(2000, 150000)
	}
	from := b.accountByID[nt.AccountID]
	here := g.newTxn(from.ID, at, "Transfer to "+to.DisplayName, amount)
	there := g.newTxn(to.ID, at, "Transfer from "+from.DisplayName, -amount)
	if amount > 0 {
		here.Description, there.Description = "Transfer from "+to.DisplayName, "Transfer to "+from.DisplayName
	}
	if nt.Description != "" {
		here.Description = nt.Description
	}
	here.TransferAccountID, there.TransferAccountID = to.ID, from.ID
	performer := primaryPerson
	switch {
	case who != nil:
		performer = who.display
	case b.owner[from.ID] != nil:
		performer = b.owner[from.ID].display
	case b.owner[to.ID] != nil:
		performer = b.owner[to.ID].display
	}
	for _, t := range []*txn{here, there} {
		t.TransactionType = ptr("Transfer")
		t.PerformingCustomer = ptr(performer)
		t.Message = clonePtr(nt.Message)
		t.Tags = dedupe(nt.Tags)
	}
	there.Tags = nil
	applyOverrides(here, nt)
	return []*txn{here, there}, nil
}

// insertAttachmentLocked adds a at its sorted position (newest first, id
// descending); b.mu is held.
func (b *Bank) insertAttachmentLocked(a *Attachment) {
	i, _ := slices.BinarySearchFunc(b.attachments, a, func(x, y *Attachment) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return cmpString(y.ID, x.ID)
	})
	b.attachments = slices.Insert(b.attachments, i, a)
	b.attByID[a.ID] = a
	b.changedLocked()
}

// makeCardPurchase gives t a card, a performing customer and raw text:
// who's, else the account's owner's, else (the joint account) one of the
// people's.
func (b *Bank) makeCardPurchase(g *generator, t *txn, acc *Account, who *person) {
	person, card := primaryPerson, "4821"
	switch {
	case who == nil && b.household:
		who = b.owner[acc.ID]
		if who == nil {
			who = b.people[g.rng.IntN(len(b.people))]
		}
	case who == nil && acc.OwnershipType == "JOINT":
		person = pick(g, b.jointPeople)
	}
	if who != nil {
		person, card = who.display, who.card
	}
	t.PerformingCustomer = ptr(person)
	t.CardPurchaseMethod = &CardPurchaseMethod{Method: "CONTACTLESS", CardNumberSuffix: ptr(card)}
	t.RawText = ptr(t.Description)
}

// jointTagless reports whether the account is a household's joint
// account, whose transactions take no tags (as the real bank's 2Up).
func (b *Bank) jointTagless(accountID string) bool {
	return b.household && accountID == b.jointAccount
}
