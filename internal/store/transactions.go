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
	"time"
	"unsafe"

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

// txLocalColumns are the local-time columns of created_at and settled_at,
// in the order txLocal produces them. They are derived from the bank's
// values and the mirror's zone, so they are not part of content_hash.
var txLocalColumns = []string{
	"created_epoch", "created_local", "created_date", "created_month",
	"settled_epoch", "settled_local", "settled_date", "settled_month",
}

var (
	insertTxSQL = "INSERT INTO transactions (id, " + strings.Join(txColumns, ", ") + //nolint:gosec // column names are this package's constants
		", raw_base, raw_patch, raw_full, content_hash, fetched_at, first_seen_at, updated_at, " + strings.Join(txLocalColumns, ", ") +
		") VALUES (?" + strings.Repeat(", ?", len(txColumns)+7+len(txLocalColumns)) + ")"
	updateTxSQL = "UPDATE transactions SET " + strings.Join(txColumns, " = ?, ") + //nolint:gosec // column names are this package's constants
		" = ?, raw_base = ?, raw_patch = ?, raw_full = ?, content_hash = ?, fetched_at = ?, updated_at = ?, " + strings.Join(txLocalColumns, " = ?, ") +
		" = ? WHERE id = ?"
)

// appendTxLocal appends the values of txLocalColumns for t in loc.
func appendTxLocal(v []any, t *bank.Transaction, loc *time.Location) []any {
	created, settled := localizeText(t.CreatedAt, loc), localizeText(t.SettledAt, loc)
	return append(append(v, created[:]...), settled[:]...)
}

// appendMoney appends an amount's currency, value and base units.
func appendMoney(v []any, m *bank.Money) []any {
	if m == nil {
		return append(v, nil, nil, nil)
	}
	return append(v, m.CurrencyCode, m.Value, m.ValueInBaseUnits)
}

// rawText is a resource's JSON as the string SQLite binds as TEXT, without
// a copy: the driver copies it into SQLite (SQLITE_TRANSIENT) and the bytes
// do not change while it does.
func rawText(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	return unsafe.String(&raw[0], len(raw)) //nolint:gosec // audited: read-only view of bytes that outlive the call
}

// appendTxValues appends the values of txColumns for t to v.
func appendTxValues(v []any, t *bank.Transaction) []any {
	v = append(v, t.AccountID, t.Status, nullable(t.RawText), t.Description, nullable(t.Message), t.IsCategorizable)
	v = appendMoney(v, &t.Amount)
	v = appendMoney(v, t.ForeignAmount)
	if h := t.HoldInfo; h != nil {
		v = appendMoney(v, &h.Amount)
		v = appendMoney(v, h.ForeignAmount)
	} else {
		v = appendMoney(v, nil)
		v = appendMoney(v, nil)
	}
	if r := t.RoundUp; r != nil {
		v = appendMoney(v, &r.Amount)
		v = appendMoney(v, r.BoostPortion)
	} else {
		v = appendMoney(v, nil)
		v = appendMoney(v, nil)
	}
	if c := t.Cashback; c != nil {
		v = append(v, c.Description)
		v = appendMoney(v, &c.Amount)
	} else {
		v = append(v, nil)
		v = appendMoney(v, nil)
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
// key order or links may vary between responses). The bytes hashed are
// encoded into buf, which it returns for the next call to reuse.
func contentHash(buf []byte, vals []any, tags []string) (hash, next []byte) {
	b := buf[:0]
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			b = append(b, 0)
		case string:
			b = binary.LittleEndian.AppendUint64(append(b, 1), uint64(len(x)))
			b = append(b, x...)
		case int64:
			b = binary.LittleEndian.AppendUint64(append(b, 2), uint64(x)) //nolint:gosec // the bits, for a hash; no overflow to fear
		case bool:
			if x {
				b = append(b, 3)
			} else {
				b = append(b, 4)
			}
		default:
			panic(fmt.Sprintf("store: unhashable %T", v))
		}
	}
	if !slices.IsSorted(tags) {
		tags = slices.Sorted(slices.Values(tags))
	}
	for _, t := range tags {
		b = binary.LittleEndian.AppendUint64(append(b, 5), uint64(len(t)))
		b = append(b, t...)
	}
	sum := sha256.Sum256(b)
	return sum[:], b
}

// txWriter writes transactions inside one write transaction. A page of
// transactions costs one statement per new or changed row plus a handful per
// page: existing rows are read, and history and tags written, in one
// statement each through json_each, so a full sync is not bound by
// per-statement overhead.
type txWriter struct {
	s        *Store
	tx       *sql.Tx
	now      string
	loc      *time.Location // the mirror's zone
	observed stamped        // now's local-time columns
	ins, upd *sql.Stmt
	args     []any  // an insert's arguments, reused
	hashed   []byte // contentHash's buffer, reused
	rebuilt  []byte // compactRaw's buffer, reused
	// whole are the rows written with their JSON whole (raw_full), which
	// compactRow then tries to store as a base URL and patch.
	whole []*bank.Transaction
}

func (s *Store) newTxWriter(ctx context.Context, tx *sql.Tx) (*txWriter, error) {
	now := s.now()
	loc, err := s.zoneIn(ctx, tx)
	if err != nil {
		return nil, err
	}
	w := &txWriter{s: s, tx: tx, now: now.UTC().Format(TimeLayout), loc: loc, observed: localize(now, loc)}
	if w.ins, err = s.txStmt(ctx, tx, insertTxSQL); err != nil {
		return nil, err
	}
	if w.upd, err = s.txStmt(ctx, tx, updateTxSQL); err != nil {
		w.ins.Close()
		return nil, err
	}
	return w, nil
}

func (w *txWriter) close() {
	w.ins.Close()
	w.upd.Close()
}

// existing is what the writer needs of a mirrored row to detect a change.
type existing struct {
	hash      []byte
	status    string
	fetchedAt string
}

// fetchedStamp is how a copy's fetch time is stored: "" when unknown.
func fetchedStamp(t *bank.Transaction) string {
	if t.FetchedAt.IsZero() {
		return ""
	}
	return t.FetchedAt.UTC().Format(TimeLayout)
}

// older reports whether a copy fetched at a is older than one at b; an
// unknown time ("") is never older.
func older(a, b string) bool { return a != "" && b != "" && a < b }

// lookup reads, in two statements, the mirrored state of the given ids and
// when those not mirrored were deleted (if they were).
func (w *txWriter) lookup(ctx context.Context, txs []bank.Transaction) (map[string]existing, map[string]string, error) {
	ids := make([]string, len(txs))
	for i := range txs {
		ids[i] = txs[i].ID
	}
	arg, err := jsonArg(ids)
	if err != nil {
		return nil, nil, err
	}
	rows, err := w.tx.QueryContext(ctx, `SELECT id, content_hash, status, fetched_at FROM transactions
		WHERE id IN (SELECT value FROM json_each(?))`, arg)
	if err != nil {
		return nil, nil, fmt.Errorf("read transactions: %w", err)
	}
	defer rows.Close()
	live := make(map[string]existing)
	for rows.Next() {
		var id string
		var e existing
		if err := rows.Scan(&id, &e.hash, &e.status, &e.fetchedAt); err != nil {
			return nil, nil, fmt.Errorf("read transactions: %w", err)
		}
		live[id] = e
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read transactions: %w", err)
	}
	rows.Close()
	if len(live) == len(txs) {
		return live, nil, nil
	}
	rows, err = w.tx.QueryContext(ctx, `SELECT id, deleted_at FROM transaction_tombstones
		WHERE id IN (SELECT value FROM json_each(?))`, arg)
	if err != nil {
		return nil, nil, fmt.Errorf("read tombstones: %w", err)
	}
	defer rows.Close()
	var deleted map[string]string
	for rows.Next() {
		var id, at string
		if err := rows.Scan(&id, &at); err != nil {
			return nil, nil, fmt.Errorf("read tombstones: %w", err)
		}
		if deleted == nil {
			deleted = map[string]string{}
		}
		deleted[id] = at
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read tombstones: %w", err)
	}
	return live, deleted, nil
}

// lastOfEach drops all but the last copy of each id, keeping order.
func lastOfEach(txs []bank.Transaction) []bank.Transaction {
	last := make(map[string]int, len(txs))
	for i := range txs {
		last[txs[i].ID] = i
	}
	if len(last) == len(txs) {
		return txs
	}
	out := make([]bank.Transaction, 0, len(last))
	for i := range txs {
		if last[txs[i].ID] == i {
			out = append(out, txs[i])
		}
	}
	return out
}

// upsert writes each transaction that is new or changed and records the
// change; unchanged rows are not touched, and neither are rows whose stored
// copy is newer than the given one, or that were deleted after the given
// copy was fetched. When an id appears twice, the later copy counts.
// changes[i] is "" when nothing was written for the i-th distinct id.
func (w *txWriter) upsert(ctx context.Context, txs []bank.Transaction) (changes []Change, err error) {
	txs = lastOfEach(txs)
	if len(txs) == 0 {
		return nil, nil
	}
	old, deleted, err := w.lookup(ctx, txs)
	if err != nil {
		return nil, err
	}
	changes = make([]Change, len(txs))
	var history [][2]any // transaction_id, change
	var updates [][]any
	var retag []string   // changed rows whose tags are replaced
	var tags [][2]string // transaction_id, tag
	for i := range txs {
		t := &txs[i]
		// An insert's arguments are built in one buffer, reused row after
		// row: id, the values, then what the store adds.
		args := appendTxValues(append(w.args[:0], t.ID), t)
		vals := args[1:]
		var hash []byte
		hash, w.hashed = contentHash(w.hashed, vals, t.TagIDs)
		// Stamps later than now come from a clock that has since been set
		// back: trust none of them, or one bad hour would freeze rows.
		fetched := min(fetchedStamp(t), w.now)
		prev, found := old[t.ID]
		if prev.fetchedAt > w.now {
			prev.fetchedAt = ""
		}
		if deleted[t.ID] > w.now {
			delete(deleted, t.ID)
		}
		switch {
		case !found && older(fetched, deleted[t.ID]):
			continue // fetched before we learned it was deleted: stale
		case !found:
			args = w.appendRaw(args, t)
			args = append(args, hash, fetched, w.now, w.now)
			args = appendTxLocal(args, t, w.loc)
			w.args = args
			if _, err := execRow(ctx, w.ins, args...); err != nil {
				return nil, fmt.Errorf("insert transaction %s: %w", t.ID, err)
			}
			changes[i] = Created
			history = append(history, [2]any{t.ID, Created})
		case bytes.Equal(prev.hash, hash), older(fetched, prev.fetchedAt):
			continue
		case prev.status == "SETTLED" && t.Status == "HELD":
			continue // the bank never un-settles: a copy from before the settlement
		default:
			changes[i] = Updated
			if prev.status == "HELD" && t.Status == "SETTLED" {
				changes[i] = Settled
			}
			upd := append(make([]any, 0, len(vals)+13), vals...)
			upd = w.appendRaw(upd, t)
			upd = append(upd, hash, fetched, w.now)
			upd = appendTxLocal(upd, t, w.loc)
			updates = append(updates, append(upd, t.ID))
			history = append(history, [2]any{t.ID, changes[i]})
			retag = append(retag, t.ID)
		}
		for _, tag := range t.TagIDs {
			tags = append(tags, [2]string{t.ID, tag})
		}
	}
	// History before the updates: it keeps each changed row's previous raw
	// JSON, read here rather than for every row looked up (most are
	// unchanged).
	if err := w.recordChanges(ctx, history); err != nil {
		return nil, err
	}
	for _, args := range updates {
		if _, err := execRow(ctx, w.upd, args...); err != nil {
			return nil, fmt.Errorf("update transaction %s: %w", args[len(args)-1], err)
		}
	}
	if err := w.compactWhole(ctx); err != nil {
		return nil, err
	}
	return changes, w.writeTags(ctx, retag, tags)
}

// appendRaw appends the values of raw_base, raw_patch and raw_full for t:
// the base URL and patch that give its JSON back byte for byte, or, when
// they cannot (compactWhole tries harder), the JSON whole.
func (w *txWriter) appendRaw(v []any, t *bank.Transaction) []any {
	base, patch, next, ok := compactRaw(w.rebuilt, t)
	w.rebuilt = next
	if !ok {
		w.whole = append(w.whole, t)
		return append(v, nil, nil, rawText(t.Raw))
	}
	if patch == nil {
		return append(v, base, nil, nil)
	}
	return append(v, base, string(patch), nil)
}

// compactWhole tries to store the JSON of each row written whole as a base
// URL and patch (compactRow), once every row is written.
func (w *txWriter) compactWhole(ctx context.Context) error {
	for _, t := range w.whole {
		if err := compactRow(ctx, w.tx, t.ID, t.Raw); err != nil {
			return err
		}
	}
	w.whole = w.whole[:0]
	return nil
}

// recordChanges writes a history row for each (id, change) with the row's
// current raw JSON as the previous version (NULL for a created row). Call
// it before updated rows change.
func (w *txWriter) recordChanges(ctx context.Context, history [][2]any) error {
	if len(history) == 0 {
		return nil
	}
	arg, err := jsonArg(history)
	if err != nil {
		return err
	}
	// The previous raw JSON is looked up only for a change (a join would
	// look up every created row too: a seek in the index on id each).
	_, err = w.tx.ExecContext(ctx, `INSERT INTO transaction_history (transaction_id, change, observed_at,
		observed_epoch, observed_local, observed_date, observed_month, raw)
		SELECT j.value->>0, j.value->>1, ?, ?, ?, ?, ?, CASE WHEN j.value->>1 = 'created' THEN NULL
			ELSE (SELECT t.raw FROM transactions AS t WHERE t.id = j.value->>0) END
		FROM json_each(?) AS j ORDER BY j.key`, w.historyArgs(arg)...)
	if err != nil {
		return fmt.Errorf("record history: %w", err)
	}
	return nil
}

// historyArgs are the arguments of a history insert: the observed_at
// columns, then the batch.
func (w *txWriter) historyArgs(batch string) []any {
	return append(append([]any{w.now}, w.observed[:]...), batch)
}

func (w *txWriter) writeHistory(ctx context.Context, history [][3]any) error {
	if len(history) == 0 {
		return nil
	}
	arg, err := jsonArg(history)
	if err != nil {
		return err
	}
	_, err = w.tx.ExecContext(ctx, `INSERT INTO transaction_history (transaction_id, change, observed_at,
		observed_epoch, observed_local, observed_date, observed_month, raw)
		SELECT value->>0, value->>1, ?, ?, ?, ?, ?, value->>2 FROM json_each(?) ORDER BY key`, w.historyArgs(arg)...)
	if err != nil {
		return fmt.Errorf("record history: %w", err)
	}
	return nil
}

func (w *txWriter) writeTags(ctx context.Context, retag []string, tags [][2]string) error {
	if len(retag) > 0 {
		arg, err := jsonArg(retag)
		if err != nil {
			return err
		}
		if _, err := w.tx.ExecContext(ctx, "DELETE FROM transaction_tags WHERE transaction_id IN (SELECT value FROM json_each(?))", arg); err != nil {
			return fmt.Errorf("clear tags: %w", err)
		}
	}
	if len(tags) == 0 {
		return nil
	}
	arg, err := jsonArg(tags)
	if err != nil {
		return err
	}
	if _, err := w.tx.ExecContext(ctx, "INSERT INTO tags (id) SELECT DISTINCT value->>1 FROM json_each(?) WHERE true ON CONFLICT DO NOTHING", arg); err != nil {
		return fmt.Errorf("add tags: %w", err)
	}
	if _, err := w.tx.ExecContext(ctx, `INSERT INTO transaction_tags (transaction_id, tag_id)
		SELECT value->>0, value->>1 FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`, arg); err != nil {
		return fmt.Errorf("tag transactions: %w", err)
	}
	return nil
}

// delete removes a live transaction and records it as deleted. It returns
// the account of the row deleted, "" when there was no such row. Either
// way it leaves a tombstone, so that a copy fetched before now cannot
// bring the transaction back.
func (w *txWriter) delete(ctx context.Context, id string) (account string, err error) {
	if _, err := w.tx.ExecContext(ctx, `INSERT INTO transaction_tombstones (id, deleted_at) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET deleted_at = excluded.deleted_at`, id, w.now); err != nil {
		return "", fmt.Errorf("record deletion of %s: %w", id, err)
	}
	var raw string
	err = w.tx.QueryRowContext(ctx, "DELETE FROM transactions WHERE id = ? RETURNING raw, account_id", id).Scan(&raw, &account)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("delete transaction %s: %w", id, err)
	}
	return account, w.writeHistory(ctx, [][3]any{{id, Deleted, raw}})
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
	changes, err := w.upsert(ctx, txs)
	if err != nil {
		return res, err
	}
	for _, c := range changes {
		res.count(c)
	}
	// Duplicates within the batch count as unchanged.
	res.Unchanged += len(txs) - len(changes)
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
	account, err := w.delete(ctx, id)
	return account != "", err
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
