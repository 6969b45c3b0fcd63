package simulator

import (
	"errors"
	"testing"
	"time"
)

// A transfer asked for as held, foreign or with a receipt is refused, not
// created without what was asked for.
func TestTransferRefusesWhatItCannotCarry(t *testing.T) {
	b := New(Options{Seed: 1, Transactions: 20})
	snap := b.Snapshot()
	from, to := snap.Accounts[0].ID, snap.Accounts[1].ID
	for name, nt := range map[string]NewTransaction{
		"held":       {AccountID: from, TransferAccountID: to, Held: true},
		"foreign":    {AccountID: from, TransferAccountID: to, Foreign: true},
		"attachment": {AccountID: from, TransferAccountID: to, Attachment: "application/pdf"},
	} {
		if ids, err := b.CreateTransaction(nt); !errors.Is(err, ErrInvalidTransfer) || len(ids) != 0 {
			t.Errorf("%s transfer: ids %v, err %v; want ErrInvalidTransfer", name, ids, err)
		}
	}
	if n := len(b.Snapshot().Transactions); n != len(snap.Transactions) {
		t.Errorf("refused transfers changed the bank: %d transactions, had %d", n, len(snap.Transactions))
	}
	if ids, err := b.CreateTransaction(NewTransaction{AccountID: from, TransferAccountID: to}); err != nil || len(ids) != 2 {
		t.Errorf("plain transfer: %v %v", ids, err)
	}
}

// Reset stops live changes, so the bank stays at its seed.
func TestResetStopsLiveChanges(t *testing.T) {
	b := New(Options{Seed: 1, Transactions: 20})
	b.SetLive(time.Hour)
	b.Reset()
	if every := b.Live(); every != 0 {
		t.Errorf("live every %v after Reset, want off", every)
	}
}
