package simulator

import (
	mrand "math/rand/v2"
)

// Reset puts the bank back as New left it: the seeded data (the same ids,
// amounts and timestamps, whatever the clock says now), the token and rate
// limit of Options, no faults, no webhook faults, no webhooks, no events or
// delivery logs, no live changes, and an empty request record; every
// person's token is Options' again. The clock and the webhook retry
// schedule are kept.
func (b *Bank) Reset() {
	b.SetLive(0) // live changes would move the bank off its seed at once
	for _, h := range b.Webhooks() {
		b.deleteWebhook(h.ID)
	}
	b.mu.Lock()
	b.rng = mrand.New(mrand.NewPCG(b.opts.Seed, rngStream))
	b.accounts, b.accountByID = nil, nil
	b.txs, b.txByID = nil, nil
	b.attachments, b.attByID = nil, nil
	b.tagCount = nil
	b.writeLog = writeLog{}
	b.seed(b.opts.Transactions, b.seededAt)
	b.changedLocked()
	b.mu.Unlock()

	wh := &b.wh
	wh.mu.Lock()
	wh.faults = WebhookFaults{}
	wh.held = nil
	wh.events = nil
	clear(wh.all)
	wh.mu.Unlock()

	b.faults.mu.Lock()
	b.faults.f = Faults{}
	b.faults.rng = mrand.New(mrand.NewPCG(b.opts.Seed, faultStream))
	b.faults.mu.Unlock()
	b.SetRateLimit(b.opts.RateLimit)
	for _, p := range b.people {
		p.setToken(p.initialToken)
		p.requests.Store(0)
		p.record.reset()
	}
	b.SetSettleAsReplacement(false)
	b.record.reset()
}
