package simulator

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file renders resources as JSON by appending to byte slices: the
// output is byte-for-byte deterministic and fast enough to list 100k
// transactions without reflection.

var (
	zoneAEST = time.FixedZone("AEST", 10*3600)
	zoneAEDT = time.FixedZone("AEDT", 11*3600)
)

// australian returns t in Melbourne/Sydney local time (+10:00 or +11:00).
// Daylight saving runs from the first Sunday of October 02:00 AEST to the
// first Sunday of April 03:00 AEDT; both instants are Saturday 16:00 UTC.
func australian(t time.Time) time.Time {
	y := t.In(zoneAEST).Year()
	dstEnd := firstSundayUTC(y, time.April).Add(-8 * time.Hour)
	dstStart := firstSundayUTC(y, time.October).Add(-8 * time.Hour)
	if t.Before(dstEnd) || !t.Before(dstStart) {
		return t.In(zoneAEDT)
	}
	return t.In(zoneAEST)
}

func firstSundayUTC(year int, month time.Month) time.Time {
	d := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	return d.AddDate(0, 0, (7-int(d.Weekday()))%7)
}

// currencyExponent is the number of decimals of a currency's base unit.
func currencyExponent(code string) int {
	switch code {
	case "JPY", "KRW", "VND", "CLP", "ISK":
		return 0
	}
	return 2
}

// appendDecimal appends the text form of m's value, e.g. -1250 AUD => -12.50.
func appendDecimal(b []byte, m Money) []byte {
	v := m.ValueInBaseUnits
	u := uint64(v) //nolint:gosec // the caller handles the sign
	if v < 0 {
		b = append(b, '-')
		u = uint64(-v)
	}
	exp := currencyExponent(m.CurrencyCode)
	if exp == 0 {
		return strconv.AppendUint(b, u, 10)
	}
	div := uint64(1)
	for range exp {
		div *= 10
	}
	b = strconv.AppendUint(b, u/div, 10)
	b = append(b, '.')
	frac := strconv.FormatUint(u%div, 10)
	for i := len(frac); i < exp; i++ {
		b = append(b, '0')
	}
	return append(b, frac...)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			const hexDigits = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendTime appends t as a quoted RFC 3339 timestamp with an Australian offset.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = australian(t).AppendFormat(b, time.RFC3339)
	return append(b, '"')
}

func appendTimePtr(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return appendTime(b, *t)
}

func appendMoney(b []byte, m Money) []byte {
	b = append(b, `{"currencyCode":`...)
	b = appendString(b, m.CurrencyCode)
	b = append(b, `,"value":"`...)
	b = appendDecimal(b, m)
	b = append(b, `","valueInBaseUnits":`...)
	b = strconv.AppendInt(b, m.ValueInBaseUnits, 10)
	return append(b, '}')
}

func appendMoneyPtr(b []byte, m *Money) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	return appendMoney(b, *m)
}

// appendIdentifier appends {"type":typ,"id":id}, or null when id is "".
func appendIdentifier(b []byte, typ, id string) []byte {
	if id == "" {
		return append(b, "null"...)
	}
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","id":`...)
	b = appendString(b, id)
	return append(b, '}')
}

// appendRelated appends a relationship {"data":..., "links":{"related":...}};
// links are left out when the related id is empty, as the real bank does.
func appendRelated(b []byte, typ, id, related string) []byte {
	b = append(b, `{"data":`...)
	b = appendIdentifier(b, typ, id)
	if id != "" {
		b = append(b, `,"links":{"related":`...)
		b = appendString(b, related)
		b = append(b, '}')
	}
	return append(b, '}')
}

// pathEscape escapes an id for use as one URL path segment.
func pathEscape(id string) string { return url.PathEscape(id) }

// appendTransaction renders a TransactionResource.
func appendTransaction(b []byte, base string, t *Transaction) []byte {
	self := base + "/transactions/" + pathEscape(t.ID)
	b = append(b, `{"type":"transactions","id":`...)
	b = appendString(b, t.ID)
	b = appendTransactionAttributes(b, t)
	b = appendTransactionRelationships(b, base, self, t)
	b = append(b, `,"links":{"self":`...)
	b = appendString(b, self)
	return append(b, "}}"...)
}

func appendTransactionAttributes(b []byte, t *Transaction) []byte {
	b = append(b, `,"attributes":{"status":"`...)
	b = append(b, t.Status...)
	b = append(b, `","rawText":`...)
	b = appendStringPtr(b, t.RawText)
	b = append(b, `,"description":`...)
	b = appendString(b, t.Description)
	b = append(b, `,"message":`...)
	b = appendStringPtr(b, t.Message)
	b = append(b, `,"isCategorizable":`...)
	b = strconv.AppendBool(b, t.IsCategorizable)
	b = append(b, `,"holdInfo":`...)
	if h := t.HoldInfo; h != nil {
		b = append(b, `{"amount":`...)
		b = appendMoney(b, h.Amount)
		b = append(b, `,"foreignAmount":`...)
		b = appendMoneyPtr(b, h.ForeignAmount)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"roundUp":`...)
	if r := t.RoundUp; r != nil {
		b = append(b, `{"amount":`...)
		b = appendMoney(b, r.Amount)
		b = append(b, `,"boostPortion":`...)
		b = appendMoneyPtr(b, r.BoostPortion)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"cashback":`...)
	if c := t.Cashback; c != nil {
		b = append(b, `{"description":`...)
		b = appendString(b, c.Description)
		b = append(b, `,"amount":`...)
		b = appendMoney(b, c.Amount)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"amount":`...)
	b = appendMoney(b, t.Amount)
	b = append(b, `,"foreignAmount":`...)
	b = appendMoneyPtr(b, t.ForeignAmount)
	b = append(b, `,"cardPurchaseMethod":`...)
	if c := t.CardPurchaseMethod; c != nil {
		b = append(b, `{"method":`...)
		b = appendString(b, c.Method)
		b = append(b, `,"cardNumberSuffix":`...)
		b = appendStringPtr(b, c.CardNumberSuffix)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"settledAt":`...)
	b = appendTimePtr(b, t.SettledAt)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, t.CreatedAt)
	b = append(b, `,"transactionType":`...)
	b = appendStringPtr(b, t.TransactionType)
	b = append(b, `,"note":`...)
	if t.Note != nil {
		b = append(b, `{"text":`...)
		b = appendString(b, *t.Note)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"performingCustomer":`...)
	if t.PerformingCustomer != nil {
		b = append(b, `{"displayName":`...)
		b = appendString(b, *t.PerformingCustomer)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"deepLinkURL":`...)
	b = appendString(b, "up://transaction/"+t.ID)
	return append(b, '}')
}

func appendTransactionRelationships(b []byte, base, self string, t *Transaction) []byte {
	b = append(b, `,"relationships":{"account":`...)
	b = appendRelated(b, "accounts", t.AccountID, base+"/accounts/"+pathEscape(t.AccountID))
	b = append(b, `,"transferAccount":`...)
	b = appendRelated(b, "accounts", t.TransferAccountID, base+"/accounts/"+pathEscape(t.TransferAccountID))
	b = append(b, `,"category":{"data":`...)
	b = appendIdentifier(b, "categories", t.CategoryID)
	b = append(b, `,"links":{"self":`...)
	b = appendString(b, self+"/relationships/category")
	if t.CategoryID != "" {
		b = append(b, `,"related":`...)
		b = appendString(b, base+"/categories/"+pathEscape(t.CategoryID))
	}
	b = append(b, `}},"parentCategory":`...)
	b = appendRelated(b, "categories", t.ParentCategoryID, base+"/categories/"+pathEscape(t.ParentCategoryID))
	b = append(b, `,"tags":{"data":[`...)
	for i, tag := range t.Tags {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendIdentifier(b, "tags", tag)
	}
	b = append(b, `],"links":{"self":`...)
	b = appendString(b, self+"/relationships/tags")
	b = append(b, `}},"attachment":`...)
	b = appendRelated(b, "attachments", t.AttachmentID, base+"/attachments/"+pathEscape(t.AttachmentID))
	return append(b, '}')
}

// appendAccount renders an AccountResource.
func appendAccount(b []byte, base string, a *Account) []byte {
	self := base + "/accounts/" + pathEscape(a.ID)
	b = append(b, `{"type":"accounts","id":`...)
	b = appendString(b, a.ID)
	b = append(b, `,"attributes":{"displayName":`...)
	b = appendString(b, a.DisplayName)
	b = append(b, `,"accountType":`...)
	b = appendString(b, a.AccountType)
	b = append(b, `,"ownershipType":`...)
	b = appendString(b, a.OwnershipType)
	b = append(b, `,"balance":`...)
	b = appendMoney(b, a.Balance)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, a.CreatedAt)
	b = append(b, `},"relationships":{"transactions":{"links":{"related":`...)
	b = appendString(b, self+"/transactions")
	b = append(b, `}}},"links":{"self":`...)
	b = appendString(b, self)
	return append(b, "}}"...)
}

// appendCategory renders a CategoryResource; children are the child ids.
func appendCategory(b []byte, base string, c *Category, children []string) []byte {
	b = append(b, `{"type":"categories","id":`...)
	b = appendString(b, c.ID)
	b = append(b, `,"attributes":{"name":`...)
	b = appendString(b, c.Name)
	b = append(b, `},"relationships":{"parent":`...)
	b = appendRelated(b, "categories", c.ParentID, base+"/categories/"+pathEscape(c.ParentID))
	b = append(b, `,"children":{"data":[`...)
	for i, id := range children {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendIdentifier(b, "categories", id)
	}
	b = append(b, `],"links":{"related":`...)
	b = appendString(b, base+"/categories?"+url.Values{"filter[parent]": {c.ID}}.Encode())
	b = append(b, `}}},"links":{"self":`...)
	b = appendString(b, base+"/categories/"+pathEscape(c.ID))
	return append(b, "}}"...)
}

// appendTag renders a TagResource.
func appendTag(b []byte, base, label string) []byte {
	b = append(b, `{"type":"tags","id":`...)
	b = appendString(b, label)
	b = append(b, `,"relationships":{"transactions":{"links":{"related":`...)
	b = appendString(b, base+"/transactions?"+url.Values{"filter[tag]": {label}}.Encode())
	return append(b, "}}}}"...)
}

// appendAttachment renders an AttachmentResource; fileURL expires 15
// minutes after now.
func appendAttachment(b []byte, base string, a *Attachment, fileURL string, expires time.Time) []byte {
	b = append(b, `{"type":"attachments","id":`...)
	b = appendString(b, a.ID)
	b = append(b, `,"attributes":{"createdAt":`...)
	b = appendTime(b, a.CreatedAt)
	b = append(b, `,"fileURL":`...)
	b = appendString(b, fileURL)
	b = append(b, `,"fileURLExpiresAt":`...)
	b = appendTime(b, expires)
	b = append(b, `,"fileExtension":`...)
	b = appendString(b, a.FileExtension)
	b = append(b, `,"fileContentType":`...)
	b = appendString(b, a.FileContentType)
	b = append(b, `},"relationships":{"transaction":`...)
	b = appendRelated(b, "transactions", a.TransactionID, base+"/transactions/"+pathEscape(a.TransactionID))
	b = append(b, `},"links":{"self":`...)
	b = appendString(b, base+"/attachments/"+pathEscape(a.ID))
	return append(b, "}}"...)
}

// appendLinks appends the pagination links object (nulls when "").
func appendLinks(b []byte, prev, next string) []byte {
	b = append(b, `"links":{"prev":`...)
	if prev == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, prev)
	}
	b = append(b, `,"next":`...)
	if next == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, next)
	}
	return append(b, '}')
}

// renderedTransaction returns the cached JSON of t for base, rendering it
// on a miss. Callers hold b.mu (read or write).
func renderedTransaction(t *txn, base string) []byte {
	if c := t.cache.Load(); c != nil && c.base == base {
		return c.json
	}
	out := appendTransaction(make([]byte, 0, 2048), base, &t.Transaction)
	t.cache.Store(&renderCache{base: base, json: out})
	return out
}
