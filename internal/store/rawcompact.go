package store

import (
	"bytes"
	"context"
	"database/sql"
	_ "embed" // the rebuild expression
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// A transaction's raw JSON is not stored whole. transactions.raw is a
// VIRTUAL generated column: rawRebuild builds the resource back from the
// row's columns and raw_base (the API's base URL its links start with),
// then raw_patch, a JSON merge patch, adds what the columns do not hold
// (the tags; any field the bank adds). When no patch gives the JSON back
// (a null inside an object the rebuild lacks), raw_full holds it as
// received. The writer checks every row: raw is the bank's JSON, byte for
// byte on the common path, and the same keys and values otherwise.

// rawRebuild is the SQL expression of a transaction's JSON from its row,
// without raw_patch, in the order of the bank's TransactionResource.
//
//go:embed transaction_raw.sql
var rawRebuild string

// rawColumn is the expression of the generated column transactions.raw.
var rawColumn = "coalesce(raw_full, json_patch(" + strings.TrimSpace(rawRebuild) + ", coalesce(raw_patch, '{}')))"

// compactRaw is how the writer stores t's raw JSON: its base URL and merge
// patch, when the rebuild from t's columns gives the JSON back byte for
// byte (the bank's usual rendering); ok is false otherwise, and the caller
// stores the JSON whole and then tries compactRow. buf is reused.
func compactRaw(buf []byte, t *bank.Transaction) (base string, patch, next []byte, ok bool) {
	base, ok = rawBase(t.Raw, t.ID)
	if !ok {
		return "", nil, buf, false
	}
	b, ok := appendRebuilt(buf[:0], t, base)
	if !ok || !bytes.Equal(b, t.Raw) {
		return "", nil, b, false
	}
	if len(t.TagIDs) > 0 {
		patch = append(patch, `{"relationships":{"tags":{"data":`...)
		patch, _ = appendTags(patch, t.TagIDs)
		patch = append(patch, "}}}"...)
	}
	return base, patch, b, true
}

// selfMarker starts the resource's own link, the last member of the JSON.
var selfMarker = []byte(`,"links":{"self":"`)

// rawBase is the base URL of raw's links, read from the resource's own
// link (base + "/transactions/" + id) where the bank renders it, last.
func rawBase(raw []byte, id string) (string, bool) {
	i := bytes.LastIndex(raw, selfMarker)
	if i < 0 {
		return "", false
	}
	self := raw[i+len(selfMarker):]
	tail := "/transactions/" + id + `"}}`
	if !bytes.HasSuffix(self, []byte(tail)) {
		return "", false
	}
	base := self[:len(self)-len(tail)]
	if bytes.ContainsAny(base, "\"\\") {
		return "", false
	}
	return string(base), true
}

// appendPlain appends s as a JSON string if it needs no escape (what both
// SQLite and the bank then write the same way); ok is false otherwise.
func appendPlain(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// rebuilder appends the JSON rawRebuild makes, for the common path: any
// string that needs an escape makes it give up (ok false).
type rebuilder struct {
	b  []byte
	ok bool
}

func (r *rebuilder) raw(s string) { r.b = append(r.b, s...) }

func (r *rebuilder) str(s string) {
	var ok bool
	r.b, ok = appendPlain(r.b, s)
	r.ok = r.ok && ok
}

func (r *rebuilder) strPtr(s *string) {
	if s == nil {
		r.raw("null")
		return
	}
	r.str(*s)
}

func (r *rebuilder) money(m *bank.Money) {
	if m == nil {
		r.raw("null")
		return
	}
	r.raw(`{"currencyCode":`)
	r.str(m.CurrencyCode)
	r.raw(`,"value":`)
	r.str(m.Value)
	r.raw(`,"valueInBaseUnits":`)
	r.b = strconv.AppendInt(r.b, m.ValueInBaseUnits, 10)
	r.raw("}")
}

// related appends a relationship to a resource of typ: {"data":null}, or
// its identifier and related link.
func (r *rebuilder) related(typ, base string, id *string) {
	if id == nil {
		r.raw(`{"data":null}`)
		return
	}
	r.raw(`{"data":{"type":"` + typ + `","id":`)
	r.str(*id)
	r.raw(`},"links":{"related":`)
	r.str(base + "/" + typ + "/" + *id)
	r.raw("}}")
}

// appendTags appends a tags relationship's data: [{"type":"tags","id":...}].
func appendTags(b []byte, tags []string) ([]byte, bool) {
	ok := true
	b = append(b, '[')
	for i, tag := range tags {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"tags","id":`...)
		var fine bool
		b, fine = appendPlain(b, tag)
		ok = ok && fine
		b = append(b, '}')
	}
	return append(b, ']'), ok
}

// appendRebuilt appends what raw is for t with base, raw_patch holding its
// tags: the expression of rawColumn, written in Go. ok is false when a
// string would need an escape.
func appendRebuilt(b []byte, t *bank.Transaction, base string) ([]byte, bool) {
	r := rebuilder{b: b, ok: true}
	r.raw(`{"type":"transactions","id":`)
	r.str(t.ID)
	r.raw(`,"attributes":{"status":`)
	r.str(t.Status)
	r.raw(`,"rawText":`)
	r.strPtr(t.RawText)
	r.raw(`,"description":`)
	r.str(t.Description)
	r.raw(`,"message":`)
	r.strPtr(t.Message)
	r.raw(`,"isCategorizable":`)
	r.b = strconv.AppendBool(r.b, t.IsCategorizable)
	r.raw(`,"holdInfo":`)
	if h := t.HoldInfo; h != nil {
		r.raw(`{"amount":`)
		r.money(&h.Amount)
		r.raw(`,"foreignAmount":`)
		r.money(h.ForeignAmount)
		r.raw("}")
	} else {
		r.raw("null")
	}
	r.raw(`,"roundUp":`)
	if u := t.RoundUp; u != nil {
		r.raw(`{"amount":`)
		r.money(&u.Amount)
		r.raw(`,"boostPortion":`)
		r.money(u.BoostPortion)
		r.raw("}")
	} else {
		r.raw("null")
	}
	r.raw(`,"cashback":`)
	if c := t.Cashback; c != nil {
		r.raw(`{"description":`)
		r.str(c.Description)
		r.raw(`,"amount":`)
		r.money(&c.Amount)
		r.raw("}")
	} else {
		r.raw("null")
	}
	r.raw(`,"amount":`)
	r.money(&t.Amount)
	r.raw(`,"foreignAmount":`)
	r.money(t.ForeignAmount)
	r.raw(`,"cardPurchaseMethod":`)
	if c := t.CardPurchaseMethod; c != nil {
		r.raw(`{"method":`)
		r.str(c.Method)
		r.raw(`,"cardNumberSuffix":`)
		r.strPtr(c.CardNumberSuffix)
		r.raw("}")
	} else {
		r.raw("null")
	}
	r.raw(`,"settledAt":`)
	r.strPtr(t.SettledAt)
	r.raw(`,"createdAt":`)
	r.str(t.CreatedAt)
	r.raw(`,"transactionType":`)
	r.strPtr(t.TransactionType)
	r.raw(`,"note":`)
	if t.Note != nil {
		r.raw(`{"text":`)
		r.str(*t.Note)
		r.raw("}")
	} else {
		r.raw("null")
	}
	r.raw(`,"performingCustomer":`)
	if t.PerformingCustomer != nil {
		r.raw(`{"displayName":`)
		r.str(*t.PerformingCustomer)
		r.raw("}")
	} else {
		r.raw("null")
	}
	r.raw(`,"deepLinkURL":`)
	r.str(t.DeepLinkURL)
	self := base + "/transactions/" + t.ID
	r.raw(`},"relationships":{"account":`)
	r.related("accounts", base, &t.AccountID)
	r.raw(`,"transferAccount":`)
	r.related("accounts", base, t.TransferAccountID)
	r.raw(`,"category":{"data":`)
	if t.CategoryID != nil {
		r.raw(`{"type":"categories","id":`)
		r.str(*t.CategoryID)
		r.raw(`},"links":{"self":`)
		r.str(self + "/relationships/category")
		r.raw(`,"related":`)
		r.str(base + "/categories/" + *t.CategoryID)
	} else {
		r.raw(`null,"links":{"self":`)
		r.str(self + "/relationships/category")
	}
	r.raw(`}},"parentCategory":`)
	r.related("categories", base, t.ParentCategoryID)
	r.raw(`,"tags":{"data":`)
	var ok bool
	r.b, ok = appendTags(r.b, t.TagIDs)
	r.ok = r.ok && ok
	r.raw(`,"links":{"self":`)
	r.str(self + "/relationships/tags")
	r.raw(`}},"attachment":`)
	r.related("attachments", base, t.AttachmentID)
	r.raw(`},"links":{"self":`)
	r.str(self)
	r.raw("}}")
	return r.b, r.ok
}

// compactRow replaces the whole JSON (raw_full) of the transaction id,
// whose JSON as received is orig, by a base URL and a merge patch, when
// they give the same keys and values back (numbers and strings exactly, as
// SQLite keeps them); otherwise it leaves the row as it is. The row holds
// orig in raw_full when it is called.
func compactRow(ctx context.Context, tx *sql.Tx, id string, orig []byte) error {
	var doc any
	if err := decodeJSON(orig, &doc); err != nil {
		return nil //nolint:nilerr // not JSON: kept whole
	}
	base := ""
	if self, ok := lookupString(doc, "links", "self"); ok {
		if b, ok := strings.CutSuffix(self, "/transactions/"+id); ok {
			base = b
		}
	}
	var rebuilt []byte
	err := tx.QueryRowContext(ctx, "SELECT "+rebuildWith("?1")+" FROM transactions WHERE id = ?2", base, id).Scan(&rebuilt)
	if err != nil {
		return fmt.Errorf("rebuild raw of %s: %w", id, err)
	}
	patch, ok := mergePatch(rebuilt, orig)
	if !ok {
		return nil
	}
	text, err := encodeJSON(patch)
	if err != nil {
		return err
	}
	var got []byte
	err = tx.QueryRowContext(ctx, `UPDATE transactions SET raw_base = ?, raw_patch = ?, raw_full = NULL
		WHERE id = ? RETURNING raw`, base, nullableText(text), id).Scan(&got)
	if err != nil {
		return fmt.Errorf("compact raw of %s: %w", id, err)
	}
	if sameJSON(got, orig) {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE transactions SET raw_base = NULL, raw_patch = NULL, raw_full = ?
		WHERE id = ?`, rawText(orig), id); err != nil {
		return fmt.Errorf("keep raw of %s: %w", id, err)
	}
	return nil
}

// rebuildWith is rawRebuild with base in place of the column raw_base.
func rebuildWith(base string) string {
	return strings.ReplaceAll(rawRebuild, "raw_base", base)
}

// nullableText is text, or NULL for the empty patch "{}".
func nullableText(text []byte) any {
	if string(text) == "{}" {
		return nil
	}
	return string(text)
}

func decodeJSON(b []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("decode json: %w", err)
	}
	if d.More() {
		return errors.New("decode json: trailing data")
	}
	return nil
}

func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// sameJSON reports whether a and b hold the same keys and values, numbers
// compared as written.
func sameJSON(a, b []byte) bool {
	var x, y any
	if decodeJSON(a, &x) != nil || decodeJSON(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func lookupString(doc any, keys ...string) (string, bool) {
	for _, k := range keys {
		m, ok := doc.(map[string]any)
		if !ok {
			return "", false
		}
		doc = m[k]
	}
	s, ok := doc.(string)
	return s, ok
}

// mergePatch is the JSON merge patch (RFC 7396) that turns the object
// from into the object to, the values it adds written as in to (their
// keys' order kept); ok is false when none can: to holds a null where from
// has another value, or a null inside an object from lacks (a patch's null
// removes a key).
func mergePatch(from, to json.RawMessage) (map[string]any, bool) {
	var f, t map[string]json.RawMessage
	if json.Unmarshal(from, &f) != nil || json.Unmarshal(to, &t) != nil || f == nil || t == nil {
		return nil, false
	}
	p := map[string]any{}
	for k, tv := range t {
		fv, in := f[k]
		switch {
		case in && sameJSON(fv, tv):
		case isNull(tv):
			return nil, false
		case in && isObject(fv) && isObject(tv):
			sub, ok := mergePatch(fv, tv)
			if !ok {
				return nil, false
			}
			p[k] = sub
		case nullInObject(tv):
			return nil, false
		default:
			p[k] = tv
		}
	}
	for k := range f {
		if _, in := t[k]; !in {
			p[k] = nil
		}
	}
	return p, true
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

// nullInObject reports whether v is an object holding a null at any
// depth (through objects only: an array is copied as it is).
func nullInObject(v json.RawMessage) bool {
	var m map[string]json.RawMessage
	if !isObject(v) || json.Unmarshal(v, &m) != nil {
		return false
	}
	for _, x := range m {
		if isNull(x) || nullInObject(x) {
			return true
		}
	}
	return false
}
