package simulator

import "fmt"

// SettleAt moves a HELD transaction to SETTLED at another amount (base
// units; a tip added, an exchange rate moved), as Settle does at a
// random one. Events: TRANSACTION_SETTLED.
func (b *Bank) SettleAt(id string, amountBaseUnits int64) error {
	b.mu.Lock()
	t, err := b.heldLocked(id)
	var account string
	if err == nil {
		if t.HoldInfo == nil {
			t.HoldInfo = &HoldInfo{Amount: t.Amount, ForeignAmount: clonePtr(t.ForeignAmount)}
		}
		old := t.Amount.ValueInBaseUnits
		b.changedLocked()
		t.Amount.ValueInBaseUnits = amountBaseUnits
		b.accountByID[t.AccountID].Balance.ValueInBaseUnits += amountBaseUnits - old
		t.Status = "SETTLED"
		t.SettledAt = ptr(b.now().Round(0))
		delete(b.held, t.ID)
		t.cache.Store(nil)
		account = t.AccountID
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("settle %s: %w", id, err)
	}
	b.emit(eventSettled, id, account)
	return nil
}
