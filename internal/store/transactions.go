package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// Change names a row of transaction_history.
type Change string

// The kinds of change recorded in transaction_history.
const (
	Created Change = "created"
	Updated Change = "updated"
	Settled Change = "settled"
	Deleted Change = "deleted"
)

// UpsertResult counts what an upsert did.
type UpsertResult struct {
	Created, Updated, Settled, Unchanged int
}

// Changed is the number of rows written.
func (r UpsertResult) Changed() int { return r.Created + r.Updated + r.Settled }

// Add sums two results.
func (r UpsertResult) Add(o UpsertResult) UpsertResult {
	return UpsertResult{r.Created + o.Created, r.Updated + o.Updated, r.Settled + o.Settled, r.Unchanged + o.Unchanged}
}

// txColumns are the transactions columns derived from the resource, in the
// order txValues produces them.
var txColumns = []string{
	"account_id", "status", "raw_text", "description", "message", "is_categorizable",
	"amount_currency", "amount_value", "amount_base_units",
	"foreign_amount_currency", "foreign_amount_value", "foreign_amount_base_units",
	"hold_amount_currency", "hold_amount_value", "hold_amount_base_units",
	"hold_foreign_amount_currency", "hold_foreign_amount_value", "hold_foreign_amount_base_units",
	"round_up_amount_currency", "round_up_amount_value", "round_up_amount_base_units",
	"round_up_boost_currency", "round_up_boost_value", "round_up_boost_base_units",
	"cashback_description", "cashback_amount_currency", "cashback_amount_value", "cashback_amount_base_units",
	"card_purchase_method", "card_number_suffix", "settled_at", "created_at", "transaction_type",
	"note", "performing_customer", "deep_link_url", "transfer_account_id", "category_id",
	"parent_category_id", "attachment_id",
}

var (
	insertTxSQL = "INSERT INTO transactions (id, " + strings.Join(txColumns, ", ") +
		", raw, content_hash, first_seen_at, updated_at) VALUES (?" + strings.Repeat(", ?", len(txColumns)+4) + ")"
	updateTxSQL = "UPDATE transactions SET " + strings.Join(txColumns, " = ?, ") +
		" = ?, raw = ?, content_hash = ?, updated_at = ? WHERE id = ?"
)

func money(m *bank.Money) []any {
	if m == nil {
		return []any{nil, nil, nil}
	}
	return []any{m.CurrencyCode, m.Value, m.ValueInBaseUnits}
}

func nullable(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// txValues flattens a transaction into the values of txColumns.
func txValues(t *bank.Transaction) []any {
	v := make([]any, 0, len(txColumns)+5)
	v = append(v, t.AccountID, t.Status, nullable(t.RawText), t.Description, nullable(t.Message), t.IsCategorizable)
	v = append(v, money(&t.Amount)...)
	v = append(v, money(t.ForeignAmount)...)
	if h := t.HoldInfo; h != nil {
		v = append(v, money(&h.Amount)...)
		v = append(v, money(h.ForeignAmount)...)
	} else {
		v = append(v, money(nil)...)
		v = append(v, money(nil)...)
	}
	if r := t.RoundUp; r != nil {
		v = append(v, money(&r.Amount)...)
		v = append(v, money(r.BoostPortion)...)
	} else {
		v = append(v, money(nil)...)
		v = append(v, money(nil)...)
	}
	if c := t.Cashback; c != nil {
		v = append(v, c.Description)
		v = append(v, money(&c.Amount)...)
	} else {
		v = append(v, nil)
		v = append(v, money(nil)...)
	}
	if c := t.CardPurchaseMethod; c != nil {
		v = append(v, c.Method, nullable(c.CardNumberSuffix))
	} else {
		v = append(v, nil, nil)
	}
	v = append(v, nullable(t.SettledAt), t.CreatedAt, nullable(t.TransactionType), nullable(t.Note),
		nullable(t.PerformingCustomer), t.DeepLinkURL, nullable(t.TransferAccountID), nullable(t.CategoryID),
		nullable(t.ParentCategoryID), nullable(t.AttachmentID))
	return v
}

// contentHash fingerprints the mirrored values and the tag set, so that an
// unchanged transaction can be recognised without comparing raw JSON (whose
// key order or links may vary between responses).
func contentHash(vals []any, tags []string) []byte {
	h := sha256.New()
	var buf [9]byte
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			h.Write([]byte{0})
		case string:
			buf[0] = 1
			binary.LittleEndian.PutUint64(buf[1:], uint64(len(x)))
			h.Write(buf[:])
			h.Write([]byte(x))
		case int64:
			buf[0] = 2
			binary.LittleEndian.PutUint64(buf[1:], uint64(x))
			h.Write(buf[:])
		case bool:
			if x {
				h.Write([]byte{3})
			} else {
				h.Write([]byte{4})
			}
		default:
			panic(fmt.Sprintf("store: unhashable %T", v))
		}
	}
	sorted := slices.Clone(tags)
	slices.Sort(sorted)
	for _, t := range sorted {
		buf[0] = 5
		binary.LittleEndian.PutUint64(buf[1:], uint64(len(t)))
		h.Write(buf[:])
		h.Write([]byte(t))
	}
	return h.Sum(nil)
}

// txWriter holds the statements of one write transaction that upserts
// transactions, prepared once and reused for every row of a page.
type txWriter struct {
	s                                            *Store
	tx                                           *sql.Tx
	now                                          string
	sel, ins, upd, hist, delTags, insTag, addTag *sql.Stmt
}

func (s *Store) newTxWriter(ctx context.Context, tx *sql.Tx) (*txWriter, error) {
	w := &txWriter{s: s, tx: tx, now: s.stamp()}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.sel, "SELECT content_hash, status, raw FROM transactions WHERE id = ?"},
		{&w.ins, insertTxSQL},
		{&w.upd, updateTxSQL},
		{&w.hist, "INSERT INTO transaction_history (transaction_id, change, observed_at, raw) VALUES (?, ?, ?, ?)"},
		{&w.delTags, "DELETE FROM transaction_tags WHERE transaction_id = ?"},
		{&w.insTag, "INSERT INTO transaction_tags (transaction_id, tag_id) VALUES (?, ?) ON CONFLICT DO NOTHING"},
		{&w.addTag, "INSERT INTO tags (id) VALUES (?) ON CONFLICT DO NOTHING"},
	} {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("prepare: %w", err)
		}
		*p.dst = st
	}
	return w, nil
}

func (w *txWriter) close() {
	for _, st := range []*sql.Stmt{w.sel, w.ins, w.upd, w.hist, w.delTags, w.insTag, w.addTag} {
		if st != nil {
			_ = st.Close()
		}
	}
}

// upsert writes one transaction if it is new or changed, recording the change.
func (w *txWriter) upsert(ctx context.Context, t *bank.Transaction) (Change, error) {
	vals := txValues(t)
	hash := contentHash(vals, t.TagIDs)

	var oldHash []byte
	var oldStatus, oldRaw string
	err := w.sel.QueryRowContext(ctx, t.ID).Scan(&oldHash, &oldStatus, &oldRaw)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		args := append([]any{t.ID}, vals...)
		args = append(args, string(t.Raw), hash, w.now, w.now)
		if _, err := w.ins.ExecContext(ctx, args...); err != nil {
			return "", fmt.Errorf("insert transaction %s: %w", t.ID, err)
		}
		if err := w.history(ctx, t.ID, Created, nil); err != nil {
			return "", err
		}
		return Created, w.tags(ctx, t, false)
	case err != nil:
		return "", fmt.Errorf("read transaction %s: %w", t.ID, err)
	case bytes.Equal(oldHash, hash):
		return "", nil
	}

	change := Updated
	if oldStatus == "HELD" && t.Status == "SETTLED" {
		change = Settled
	}
	if err := w.history(ctx, t.ID, change, &oldRaw); err != nil {
		return "", err
	}
	args := append(vals, string(t.Raw), hash, w.now, t.ID)
	if _, err := w.upd.ExecContext(ctx, args...); err != nil {
		return "", fmt.Errorf("update transaction %s: %w", t.ID, err)
	}
	return change, w.tags(ctx, t, true)
}

func (w *txWriter) history(ctx context.Context, id string, c Change, raw *string) error {
	if _, err := w.hist.ExecContext(ctx, id, string(c), w.now, nullable(raw)); err != nil {
		return fmt.Errorf("record %s of transaction %s: %w", c, id, err)
	}
	return nil
}

func (w *txWriter) tags(ctx context.Context, t *bank.Transaction, replace bool) error {
	if replace {
		if _, err := w.delTags.ExecContext(ctx, t.ID); err != nil {
			return fmt.Errorf("clear tags of %s: %w", t.ID, err)
		}
	}
	for _, tag := range t.TagIDs {
		if _, err := w.addTag.ExecContext(ctx, tag); err != nil {
			return fmt.Errorf("add tag: %w", err)
		}
		if _, err := w.insTag.ExecContext(ctx, t.ID, tag); err != nil {
			return fmt.Errorf("tag transaction %s: %w", t.ID, err)
		}
	}
	return nil
}

// delete removes a live transaction and records it as deleted. It reports
// whether there was such a row.
func (w *txWriter) delete(ctx context.Context, id string) (bool, error) {
	var raw string
	err := w.tx.QueryRowContext(ctx, "DELETE FROM transactions WHERE id = ? RETURNING raw", id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete transaction %s: %w", id, err)
	}
	return true, w.history(ctx, id, Deleted, &raw)
}

func (r *UpsertResult) count(c Change) {
	switch c {
	case Created:
		r.Created++
	case Updated:
		r.Updated++
	case Settled:
		r.Settled++
	default:
		r.Unchanged++
	}
}

// UpsertTransactionsTx writes txs inside tx: new rows are inserted, changed
// rows updated, and every real change recorded in transaction_history.
// Unchanged rows are left alone (updated_at included).
func (s *Store) UpsertTransactionsTx(ctx context.Context, tx *sql.Tx, txs []bank.Transaction) (UpsertResult, error) {
	var res UpsertResult
	w, err := s.newTxWriter(ctx, tx)
	if err != nil {
		return res, err
	}
	defer w.close()
	for i := range txs {
		c, err := w.upsert(ctx, &txs[i])
		if err != nil {
			return res, err
		}
		res.count(c)
	}
	return res, nil
}

// UpsertTransactions is UpsertTransactionsTx in a transaction of its own.
func (s *Store) UpsertTransactions(ctx context.Context, txs []bank.Transaction) (res UpsertResult, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		res, err = s.UpsertTransactionsTx(ctx, tx, txs)
		return err
	})
	return res, err
}

// DeleteTransactionTx removes a transaction the bank no longer has, recording
// the last version in transaction_history. Deleting an unknown id is not an
// error: it reports false.
func (s *Store) DeleteTransactionTx(ctx context.Context, tx *sql.Tx, id string) (bool, error) {
	w, err := s.newTxWriter(ctx, tx)
	if err != nil {
		return false, err
	}
	defer w.close()
	return w.delete(ctx, id)
}

// DeleteTransaction is DeleteTransactionTx in a transaction of its own.
func (s *Store) DeleteTransaction(ctx context.Context, id string) (deleted bool, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		deleted, err = s.DeleteTransactionTx(ctx, tx, id)
		return err
	})
	return deleted, err
}

// HeldTransactionIDs lists the ids of locally HELD transactions.
func (s *Store) HeldTransactionIDs(ctx context.Context) ([]string, error) {
	return s.strings(ctx, "SELECT id FROM transactions WHERE status = 'HELD' ORDER BY created_at")
}

// NewestCreatedAt is the latest createdAt of a live transaction, as sent
// by the bank, or "" when there is none. Offsets are compared as instants.
func (s *Store) NewestCreatedAt(ctx context.Context) (string, error) {
	var v sql.NullString
	err := s.ro.QueryRowContext(ctx,
		"SELECT created_at FROM transactions ORDER BY unixepoch(created_at, 'subsec') DESC LIMIT 1").Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("newest transaction: %w", err)
	}
	return v.String, nil
}

func (s *Store) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := s.ro.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return out, nil
}
