package simulator

import (
	"encoding/hex"
	mrand "math/rand/v2"
	"slices"
	"time"
)

// Seeded history: it ends a little before Now() and spans at least 400
// days, or longer so that there are at most ~25 transactions a day.
const (
	minHistory    = 400 * 24 * time.Hour
	txPerDay      = 25
	primaryPerson = "Bobby"
	partnerPerson = "Alex"
	salaryPayer   = "Acme Analytics Pty Ltd"
)

// generator builds the seeded history. It runs inside New, before the bank
// is shared, so it needs no locking.
type generator struct {
	b          *Bank
	rng        *mrand.Rand
	start, end time.Time
	out        []*txn
	atts       []*Attachment
	weights    []int // cumulative merchant weights
	acc        seededAccounts

	person     string            // display name of the customer whose history is generated
	partner    string            // the other cardholder of the joint account
	jointShare float64           // fraction of random purchases made on the joint account
	cards      map[string]string // card suffix of each display name; nil = the fixed cards of a household of one
}

// seededAccounts are the ids of the seeded accounts by role.
type seededAccounts struct {
	spending, joint, saver1, saver2, homeLoan string
}

// seed fills the bank with categories, accounts and n transactions whose
// history ends a little before now.
func (b *Bank) seed(n int, now time.Time) {
	end := now.Add(-2 * time.Minute).Truncate(time.Second)
	span := max(minHistory, time.Duration(n/txPerDay)*24*time.Hour)
	g := &generator{b: b, rng: b.rng, start: end.Add(-span), end: end,
		person: primaryPerson, partner: partnerPerson, jointShare: 0.22}
	customer, secret := g.uuid(), g.uuid()
	if b.customerID == "" { // a Reset draws the same ones again
		b.customerID, b.secret = customer, []byte(secret)
	}
	if b.categoryMap == nil { // fixed: a Reset keeps them
		b.seedCategories()
	}
	if b.household {
		g.seedHousehold(n)
		return
	}
	g.seedAccounts()
	if b.jointAccount == "" { // a Reset draws the same id again
		b.jointAccount = g.acc.joint
	}
	b.people[0].settle(b.customerID, b.accounts, nil)
	total := 0
	for _, m := range merchants {
		total += m.weight
		g.weights = append(g.weights, total)
	}
	if n >= 50 {
		g.showcase()
	}
	for len(g.out) < n {
		g.random(n - len(g.out))
	}
	g.install()
}

// seedCategories installs the fixed category tree.
func (b *Bank) seedCategories() {
	for _, p := range categoryTree {
		b.categories = append(b.categories, Category{ID: p.id, Name: p.name})
		for _, c := range p.children {
			b.categories = append(b.categories, Category{ID: c[0], Name: c[1], ParentID: p.id})
		}
	}
	b.categoryMap = make(map[string]*Category, len(b.categories))
	for i := range b.categories {
		b.categoryMap[b.categories[i].ID] = &b.categories[i]
	}
}

// seedAccounts opens the customer's accounts before the history starts.
func (g *generator) seedAccounts() {
	specs := []struct {
		role       *string
		name, typ  string
		owner      string
		daysBefore int
	}{
		{&g.acc.spending, "Spending", "TRANSACTIONAL", "INDIVIDUAL", 60},
		{&g.acc.saver1, "Rainy Day 🌧", "SAVER", "INDIVIDUAL", 59},
		{&g.acc.saver2, "Japan Trip ✈️", "SAVER", "INDIVIDUAL", 41},
		{&g.acc.joint, "2Up Spending", "TRANSACTIONAL", "JOINT", 30},
		{&g.acc.homeLoan, "Home Loan", "HOME_LOAN", "INDIVIDUAL", 12},
	}
	b := g.b
	b.accountByID = make(map[string]*Account, len(specs))
	for _, s := range specs {
		a := &Account{
			ID: g.uuid(), DisplayName: s.name, AccountType: s.typ, OwnershipType: s.owner,
			Balance:   Money{CurrencyCode: "AUD"},
			CreatedAt: g.start.Add(-time.Duration(s.daysBefore)*24*time.Hour + time.Duration(g.rng.IntN(36000))*time.Second),
		}
		*s.role = a.ID
		b.accounts = append(b.accounts, a)
		b.accountByID[a.ID] = a
	}
	slices.SortFunc(b.accounts, func(x, y *Account) int { return x.CreatedAt.Compare(y.CreatedAt) })
	b.mainAccount = g.acc.spending
	b.jointPeople = []string{primaryPerson, partnerPerson}
}

// uuid returns a random (version 4 shaped) UUID from the seeded rng.
func (g *generator) uuid() string { return newUUID(g.rng) }

func newUUID(rng *mrand.Rand) string {
	var u [16]byte
	for i := 0; i < 16; i += 8 {
		v := rng.Uint64()
		for j := range 8 {
			u[i+j] = byte(v >> (8 * j)) //nolint:gosec // one byte of v: truncation intended
		}
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return string(s[:])
}

// randomTime picks a moment of the history at a plausible time of day.
func (g *generator) randomTime() time.Time {
	t := g.end.Add(-time.Duration(g.rng.Int64N(int64(g.end.Sub(g.start)/time.Second))) * time.Second)
	local := australian(t)
	y, m, d := local.Date()
	hour := 7 + g.rng.IntN(16)
	t = time.Date(y, m, d, hour, g.rng.IntN(60), g.rng.IntN(60), 0, local.Location())
	if t.After(g.end) {
		t = t.Add(-24 * time.Hour)
	}
	return t
}

func (g *generator) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.rng.Int64N(hi-lo+1)
}

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func pick[T any](g *generator, xs []T) T { return xs[g.rng.IntN(len(xs))] }

func (g *generator) pickMerchant() *merchant {
	r := g.rng.IntN(g.weights[len(g.weights)-1])
	i, _ := slices.BinarySearch(g.weights, r+1)
	return &merchants[i]
}

func (g *generator) merchantFor(category string) *merchant {
	for i := range merchants {
		if merchants[i].category == category {
			return &merchants[i]
		}
	}
	return &merchants[0]
}

func (g *generator) pickMethod() string {
	total := 0
	for _, m := range cardMethods {
		total += m.weight
	}
	r := g.rng.IntN(total)
	for _, m := range cardMethods {
		if r < m.weight {
			return m.method
		}
		r -= m.weight
	}
	return "CONTACTLESS"
}

// random appends one random transaction, or a transfer pair when room >= 2.
func (g *generator) random(room int) {
	at := g.randomTime()
	switch r := g.rng.IntN(1000); {
	case r < 780:
		g.add(g.purchaseTx(g.randomPurchase(at)))
	case r < 820:
		g.add(g.paymentTx(at, false))
	case r < 845:
		g.add(g.paymentTx(at, true))
	case r < 865:
		g.add(g.salaryTx(at))
	case r < 915 && room >= 2:
		g.randomTransfer(at)
	case r < 935:
		g.add(g.interestTx(at, pick(g, []string{g.acc.saver1, g.acc.saver2}), g.between(5, 4000), "Interest"))
	case r < 950 && room >= 2:
		g.transferPair(at, g.acc.spending, g.acc.homeLoan, g.between(150000, 260000), nil)
	case r < 965:
		g.add(g.interestTx(at, g.acc.homeLoan, -g.between(90000, 160000), "Interest Charged"))
	default:
		g.add(g.refundTx(at))
	}
}

func (g *generator) randomTransfer(at time.Time) {
	a := g.acc
	routes := [][2]string{
		{a.spending, a.saver1}, {a.spending, a.saver2}, {a.saver1, a.spending},
		{a.spending, a.joint}, {a.joint, a.spending},
	}
	r := pick(g, routes)
	var msg *string
	if g.chance(0.3) {
		msg = ptr(pick(g, []string{"Saving for Japan 🇯🇵", "Top up", "Bills buffer", "Groceries this week"}))
	}
	g.transferPair(at, r[0], r[1], g.between(2000, 150000), msg)
}

func (g *generator) add(ts ...*txn) { g.out = append(g.out, ts...) }

// purchase describes a card purchase or direct debit before it is built.
type purchase struct {
	account, person string
	m               *merchant
	at              time.Time
	method          string // "" = direct debit (no card)
	suffix          *string
	foreign         int // index into foreignCurrencies, -1 = domestic
	everHeld        bool
	settleAfter     time.Duration
	tip             bool
	roundUp, boost  bool
	cashback        bool
	note            bool
	attachment      bool
	uncategorized   bool
	typed           bool // transactionType "Purchase" rather than null
	tags            []string
	amount          int64 // AUD cents, negative
}

func (g *generator) randomPurchase(at time.Time) purchase {
	p := purchase{account: g.acc.spending, person: g.person, m: g.pickMerchant(), at: at, foreign: -1}
	if g.jointShare > 0 && g.chance(g.jointShare) {
		p.account, p.person = g.acc.joint, pick(g, g.b.jointPeople)
	}
	p.amount = -g.between(p.m.min, p.m.max)
	if p.m.debit {
		p.typed = true
		return p
	}
	p.method = g.pickMethod()
	p.suffix = g.cardSuffix(p)
	if (p.m.online && g.chance(0.25)) || (p.m.category == "holidays-and-travel" && g.chance(0.5)) || g.chance(0.01) {
		p.foreign = g.rng.IntN(len(foreignCurrencies))
	}
	p.everHeld = g.chance(0.75)
	p.settleAfter = time.Duration(g.between(6*3600, 72*3600)) * time.Second
	p.tip = p.everHeld && (p.m.category == "restaurants-and-cafes" || p.m.category == "pubs-and-bars") && g.chance(0.25)
	p.roundUp = p.account == g.acc.spending && g.chance(0.4)
	p.boost = p.roundUp && g.chance(0.2)
	p.cashback = g.chance(0.01)
	p.note = g.chance(0.02)
	p.attachment = g.chance(0.02)
	p.uncategorized = g.chance(0.03)
	p.typed = g.chance(0.4)
	if g.chance(0.05) {
		p.tags = g.randomTags(1 + g.rng.IntN(3))
	}
	return p
}

func (g *generator) cardSuffix(p purchase) *string {
	switch {
	case p.method == "BAR_CODE" || p.method == "OCR":
		return nil
	case p.method == "CARD_ON_FILE" && g.chance(0.3):
		return nil
	case g.cards != nil:
		return ptr(g.cards[p.person])
	case p.person == partnerPerson:
		return ptr("7390")
	case p.account == g.acc.joint:
		return ptr("1156")
	}
	return ptr("4821")
}

func (g *generator) randomTags(n int) []string {
	idx := g.rng.Perm(len(tagPool))[:n]
	tags := make([]string, n)
	for i, j := range idx {
		tags[i] = tagPool[j]
	}
	return tags
}

// newTxn starts a transaction with the fields every kind shares.
func (g *generator) newTxn(account string, at time.Time, desc string, amount int64) *txn {
	t := &txn{}
	t.ID = g.uuid()
	t.AccountID = account
	t.Status = "SETTLED"
	t.Description = desc
	t.Amount = Money{CurrencyCode: "AUD", ValueInBaseUnits: amount}
	t.CreatedAt = at
	t.SettledAt = ptr(at)
	return t
}

func (g *generator) foreignMoney(aud int64, cur int) *Money {
	fc := foreignCurrencies[cur]
	return &Money{CurrencyCode: fc.code, ValueInBaseUnits: aud * fc.rate / 1000}
}

// purchaseTx builds a card purchase or direct debit.
func (g *generator) purchaseTx(p purchase) *txn {
	t := g.newTxn(p.account, p.at, p.m.name, p.amount)
	t.IsCategorizable = true
	if !p.uncategorized {
		t.CategoryID = p.m.category
		t.ParentCategoryID = g.b.categoryMap[p.m.category].ParentID
	}
	t.PerformingCustomer = ptr(p.person)
	t.Tags = p.tags
	raw := p.m.raw
	if p.foreign >= 0 {
		fc := foreignCurrencies[p.foreign]
		raw = p.m.name + ", " + fc.city + " " + fc.place
		t.ForeignAmount = g.foreignMoney(p.amount, p.foreign)
	}
	t.RawText = ptr(raw)
	if p.method == "" {
		t.TransactionType = ptr("Direct Debit")
		return t
	}
	if p.typed {
		t.TransactionType = ptr("Purchase")
	}
	t.CardPurchaseMethod = &CardPurchaseMethod{Method: p.method, CardNumberSuffix: p.suffix}
	g.applyHold(t, p)
	g.applyExtras(t, p)
	return t
}

// applyHold sets status, settledAt and holdInfo; a settled purchase that was
// held may differ from its held amount (tip, exchange rate).
func (g *generator) applyHold(t *txn, p purchase) {
	if !p.everHeld {
		return
	}
	hold := &HoldInfo{Amount: t.Amount, ForeignAmount: clonePtr(t.ForeignAmount)}
	t.HoldInfo = hold
	if settled := p.at.Add(p.settleAfter); settled.Before(g.end) {
		t.SettledAt = ptr(settled)
		switch {
		case p.tip:
			hold.Amount.ValueInBaseUnits = t.Amount.ValueInBaseUnits * 100 / 115
		case p.foreign >= 0:
			hold.Amount.ValueInBaseUnits = t.Amount.ValueInBaseUnits + g.between(-150, 150)
		}
		return
	}
	t.Status = "HELD"
	t.SettledAt = nil
}

// applyExtras adds round-up, cashback, note and attachment.
func (g *generator) applyExtras(t *txn, p purchase) {
	if p.roundUp {
		cents := (-p.amount) % 100
		total := int64(0)
		if cents != 0 {
			total = 100 - cents
		}
		var boost *Money
		if p.boost {
			b := g.between(1, 5) * 100
			total += b
			boost = &Money{CurrencyCode: "AUD", ValueInBaseUnits: -b}
		}
		if total > 0 {
			t.RoundUp = &RoundUp{Amount: Money{CurrencyCode: "AUD", ValueInBaseUnits: -total}, BoostPortion: boost}
		}
	}
	if p.cashback {
		t.Cashback = &Cashback{Description: "Instant cashback – " + p.m.name + " offer", Amount: Money{CurrencyCode: "AUD", ValueInBaseUnits: g.between(100, 1000)}}
	}
	if p.note {
		t.Note = ptr(pick(g, notes))
	}
	if p.attachment {
		g.attach(t)
	}
}

// attach gives t a receipt attachment.
func (g *generator) attach(t *txn) {
	kinds := [][2]string{{"jpg", "image/jpeg"}, {"png", "image/png"}, {"pdf", "application/pdf"}}
	k := pick(g, kinds)
	at := t.CreatedAt.Add(time.Duration(g.between(60, 7200)) * time.Second)
	if at.After(g.end) {
		at = g.end
	}
	a := &Attachment{ID: g.uuid(), TransactionID: t.ID, CreatedAt: at, FileExtension: k[0], FileContentType: k[1]}
	t.AttachmentID = a.ID
	g.atts = append(g.atts, a)
}

// paymentTx is a Pay Anyone payment out, or an incoming payment.
func (g *generator) paymentTx(at time.Time, incoming bool) *txn {
	amount := g.between(1000, 60000)
	if !incoming {
		amount = -amount
	}
	t := g.newTxn(g.acc.spending, at, pick(g, people), amount)
	t.IsCategorizable = true
	t.Message = ptr(pick(g, paymentMessages))
	if incoming {
		t.TransactionType = ptr("Osko Payment Received")
		return t
	}
	t.TransactionType = ptr("Pay Anyone")
	t.PerformingCustomer = ptr(g.person)
	if g.chance(0.3) {
		t.CategoryID, t.ParentCategoryID = "gifts-and-charity", "personal"
	}
	if g.chance(0.05) {
		t.Message = nil
	}
	return t
}

func (g *generator) salaryTx(at time.Time) *txn {
	t := g.newTxn(g.acc.spending, at, salaryPayer, g.between(250000, 420000))
	t.IsCategorizable = true
	t.RawText = ptr("ACME ANALYTICS PTY SALARY")
	t.Message = ptr("Salary")
	t.TransactionType = ptr("Salary")
	return t
}

func (g *generator) interestTx(at time.Time, account string, amount int64, typ string) *txn {
	t := g.newTxn(account, at, "Interest", amount)
	t.TransactionType = ptr(typ)
	return t
}

func (g *generator) refundTx(at time.Time) *txn {
	m := g.pickMerchant()
	t := g.newTxn(g.acc.spending, at, m.name, g.between(m.min, m.max))
	t.IsCategorizable = true
	t.RawText = ptr(m.raw + " REFUND")
	t.TransactionType = ptr("Refund")
	t.CategoryID, t.ParentCategoryID = m.category, g.b.categoryMap[m.category].ParentID
	t.PerformingCustomer = ptr(g.person)
	return t
}

// transferPair moves amount cents between two own accounts: one
// transaction in each account, opposite signs, pointing at each other.
func (g *generator) transferPair(at time.Time, from, to string, amount int64, msg *string) {
	b := g.b
	out := g.newTxn(from, at, "Transfer to "+b.accountByID[to].DisplayName, -amount)
	in := g.newTxn(to, at, "Transfer from "+b.accountByID[from].DisplayName, amount)
	for _, t := range []*txn{out, in} {
		t.TransactionType = ptr("Transfer")
		t.Message = clonePtr(msg)
		t.PerformingCustomer = ptr(g.person)
	}
	out.TransferAccountID, in.TransferAccountID = to, from
	if to == g.acc.homeLoan {
		out.Description, in.Description = "Home Loan Repayment", "Repayment from Spending"
	}
	g.add(out, in)
}

// showcase adds recent transactions that together show every optional
// field variant, so that even small seeded banks cover them all.
func (g *generator) showcase() {
	at := func(minutesAgo int) time.Time { return g.end.Add(-time.Duration(minutesAgo) * time.Minute) }
	mk := func(minutesAgo int, category, method string) purchase {
		p := g.randomPurchase(at(minutesAgo))
		p.account, p.person, p.m, p.method = g.acc.spending, g.person, g.merchantFor(category), method
		p.amount = -g.between(p.m.min, p.m.max)
		p.suffix = g.cardSuffix(p)
		p.foreign, p.everHeld, p.settleAfter, p.tip = -1, false, 0, false
		p.roundUp, p.boost, p.cashback, p.note, p.attachment, p.uncategorized = false, false, false, false, false, false
		p.tags = nil
		return p
	}
	held := mk(7, "groceries", "CONTACTLESS")
	held.everHeld, held.settleAfter, held.roundUp = true, 48*time.Hour, true
	heldForeign := mk(19, "games-and-software", "ECOMMERCE")
	heldForeign.everHeld, heldForeign.settleAfter, heldForeign.foreign = true, 72*time.Hour, 0
	settledForeign := mk(4*24*60, "holidays-and-travel", "CARD_ON_FILE")
	settledForeign.everHeld, settledForeign.settleAfter, settledForeign.foreign = true, 24*time.Hour, 4
	tipped := mk(3*24*60, "restaurants-and-cafes", "CARD_PIN")
	tipped.everHeld, tipped.settleAfter, tipped.tip, tipped.roundUp, tipped.boost = true, 20*time.Hour, true, true, true
	cash := mk(150, "clothing-and-accessories", "CARD_DETAILS")
	cash.cashback, cash.roundUp, cash.typed = true, true, true
	noted := mk(230, "restaurants-and-cafes", "MAGNETIC_STRIPE")
	noted.note, noted.attachment, noted.tags = true, true, []string{"café", "🏖 beach", "Holiday 2024"}
	bar := mk(300, "groceries", "BAR_CODE")
	bar.account, bar.person, bar.tags = g.acc.joint, g.partner, nil
	ocr := mk(360, "pets", "OCR")
	ocr.account, ocr.person, ocr.uncategorized = g.acc.joint, g.person, true
	fileOnly := mk(420, "fuel", "CARD_ON_FILE")
	fileOnly.suffix = nil
	maxTagged := mk(480, "takeaway", "CONTACTLESS")
	maxTagged.tags = append([]string(nil), tagPool[:maxTags]...)
	debit := mk(600, "utilities", "")
	debit.method, debit.suffix, debit.typed = "", nil, true
	for _, p := range []purchase{held, heldForeign, settledForeign, tipped, cash, noted, bar, ocr, fileOnly, maxTagged, debit} {
		g.add(g.purchaseTx(p))
	}
	g.transferPair(at(45), g.acc.spending, g.acc.saver2, 25000, ptr("Saving for Japan 🇯🇵"))
	if g.acc.homeLoan != "" {
		g.transferPair(at(2*24*60), g.acc.spending, g.acc.homeLoan, 210000, nil)
	}
	g.add(g.interestTx(at(8*60), g.acc.saver1, 1234, "Interest"))
	if g.acc.homeLoan != "" {
		g.add(g.interestTx(at(9*60), g.acc.homeLoan, -123456, "Interest Charged"))
	}
	g.add(g.paymentTx(at(12*60), true), g.paymentTx(at(13*60), false), g.salaryTx(at(26*60)), g.refundTx(at(27*60)))
}

// install sorts the generated data into the bank and sets balances.
func (g *generator) install() {
	b := g.b
	slices.SortFunc(g.out, func(x, y *txn) int {
		if txBefore(&x.Transaction, &y.Transaction) {
			return -1
		}
		return 1
	})
	b.txs = g.out
	b.txByID = make(map[string]*txn, len(g.out))
	b.tagCount = map[string]int{}
	b.accountTags = map[string]map[string]int{}
	b.held = map[string]*txn{}
	for _, t := range g.out {
		b.txByID[t.ID] = t
		if t.Status == "HELD" {
			b.held[t.ID] = t
		}
		b.countTags(t.AccountID, t.Tags, +1)
	}
	slices.SortFunc(g.atts, func(x, y *Attachment) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return cmpString(y.ID, x.ID)
	})
	b.attachments = g.atts
	b.attByID = make(map[string]*Attachment, len(g.atts))
	for _, a := range g.atts {
		b.attByID[a.ID] = a
	}
	// Each account's opening balance absorbs its history, so that the
	// balance is a plausible figure and equals the opening balance plus the
	// account's transactions; mutations then move it consistently.
	sums := map[string]int64{}
	for _, t := range g.out {
		sums[t.AccountID] += t.Amount.ValueInBaseUnits
	}
	targets := g.balanceTargets()
	for _, a := range b.accounts {
		a.Balance.ValueInBaseUnits = targets[a.ID]
		a.OpeningBalance = Money{CurrencyCode: a.Balance.CurrencyCode, ValueInBaseUnits: targets[a.ID] - sums[a.ID]}
	}
}

// balanceTargets draws each account's balance at the end of the history.
func (g *generator) balanceTargets() map[string]int64 {
	if g.b.household {
		return g.householdBalances()
	}
	return map[string]int64{
		g.acc.spending: g.between(80000, 600000), g.acc.joint: g.between(20000, 250000),
		g.acc.saver1: g.between(200000, 1500000), g.acc.saver2: g.between(50000, 800000),
		g.acc.homeLoan: -g.between(35000000, 62000000),
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
