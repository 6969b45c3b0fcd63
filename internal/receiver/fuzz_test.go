package receiver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// FuzzVerifySignature: VerifySignature never panics; the bank's signature
// for a non-empty secret always verifies (also among other secrets), and
// only in the bank's lowercase form; flipping any byte of the body or the
// MAC never does.
func FuzzVerifySignature(f *testing.F) {
	f.Add([]byte(`{"data":{}}`), []byte("secret"), "", uint16(0))
	f.Add([]byte{}, []byte("k"), strings.Repeat("0", 64), uint16(31))
	f.Add([]byte("\x00\xff"), []byte{}, "zz", uint16(7))
	f.Fuzz(func(t *testing.T, body, secret []byte, sig string, pos uint16) {
		_ = VerifySignature(body, sig, [][]byte{secret})
		_ = VerifySignature(body, sig, nil)

		good := sign(body, secret)
		ok := VerifySignature(body, good, [][]byte{secret})
		if len(secret) == 0 {
			if ok {
				t.Fatal("an empty secret verified")
			}
			return
		}
		if !ok {
			t.Fatal("the correct signature did not verify")
		}
		if !VerifySignature(body, good, [][]byte{[]byte("other"), secret}) {
			t.Fatal("the correct signature did not verify among two secrets")
		}
		if upper := strings.ToUpper(good); upper != good && VerifySignature(body, upper, [][]byte{secret}) {
			t.Fatal("the correct signature verified in upper case")
		}
		if !WellFormedSignature(good) || WellFormedSignature(good+"0") || WellFormedSignature(good[1:]) {
			t.Fatal("WellFormedSignature disagrees with the bank's form")
		}

		mac := []byte(good)
		i := int(pos) % len(mac)
		// Replace one hex digit by a different one (same case, so the
		// decoded MAC differs).
		if mac[i] == '0' {
			mac[i] = '1'
		} else {
			mac[i] = '0'
		}
		if VerifySignature(body, string(mac), [][]byte{secret}) {
			t.Fatalf("a MAC with digit %d changed verified", i)
		}
		if len(body) > 0 {
			flipped := bytes.Clone(body)
			flipped[int(pos)%len(body)] ^= 1 << (pos % 8)
			if VerifySignature(flipped, good, [][]byte{secret}) {
				t.Fatal("a body with a flipped bit verified")
			}
		}
	})
}

// FuzzHandler posts arbitrary bodies, signed or not, to a receiver on a
// real store: it never panics, never answers 5xx, a 200 means the event's
// row exists, and anything else leaves the table as it was.
func FuzzHandler(f *testing.F) {
	f.Add(eventBody("ev-1", "TRANSACTION_CREATED", "tx-1"), true)
	f.Add(eventBody("ev-2", "PING", ""), true)
	f.Add(eventBody("ev-3", "TRANSACTION_DELETED", "tx-3"), false)
	f.Add(eventBody("ev-4", "TRANSACTION_CREATED", ""), true)
	f.Add([]byte(`{"data":null}`), true)
	f.Add([]byte(`{"data":`), true)
	f.Add([]byte{}, true)
	f.Add([]byte{}, false)

	st := mustOpenStore(f)
	r := New(st, Config{Keys: newSecretSet(secretA), Log: zerolog.Nop()})
	if err := r.Start(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = r.Close() })
	h := r.Handler()

	f.Fuzz(func(t *testing.T, body []byte, signed bool) {
		before := countRows(t, st, "")
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		if signed {
			req.Header.Set(SignatureHeader, sign(body, secretA))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		after := countRows(t, st, "")

		switch {
		case rec.Code >= 500:
			t.Fatalf("status %d with a working store", rec.Code)
		case rec.Code == http.StatusOK:
			if !signed {
				t.Fatal("unsigned body accepted")
			}
			id := eventID(body)
			if id == "" {
				t.Fatal("200 for a body the parser rejects")
			}
			if countRows(t, st, id) != 1 {
				t.Fatalf("200 but no row for %q", id)
			}
		default:
			if after != before {
				t.Fatalf("status %d but rows went from %d to %d", rec.Code, before, after)
			}
		}
	})
}

// FuzzSignatureHeaders posts bodies with arbitrary values in both
// signature headers (mode bit 0 or 1 replaces the spec's or the real
// bank's with the correct signature, bit 2 repeats the spec's): a 200 means
// every value present is the correct signature and the row exists; a
// request whose values are all correct is never refused for its signature
// when its body names a webhook (one naming none has no secret to be
// signed with); anything refused leaves the table as it was.
func FuzzSignatureHeaders(f *testing.F) {
	created := eventBody("ev-f1", "TRANSACTION_CREATED", "tx-1")
	f.Add(created, "", "", uint8(1))
	f.Add(created, "", "", uint8(2))
	f.Add(created, "", "", uint8(3))
	f.Add(created, "", sign(created, []byte("other")), uint8(1))
	f.Add(created, strings.Repeat("a", 64), "", uint8(2))
	f.Add(created, "", "", uint8(5))
	f.Add([]byte(`{"data":`), "", "", uint8(2))

	st := mustOpenStore(f)
	r := New(st, Config{Keys: newSecretSet(secretA), Log: zerolog.Nop()})
	if err := r.Start(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = r.Close() })
	h := r.Handler()

	f.Fuzz(func(t *testing.T, body []byte, spec, up string, mode uint8) {
		good := sign(body, secretA)
		if mode&1 != 0 {
			spec = good
		}
		if mode&2 != 0 {
			up = good
		}
		repeated := mode&4 != 0 && spec != ""
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		if spec != "" {
			req.Header.Set(SignatureHeader, spec)
			if repeated {
				req.Header.Add(SignatureHeader, spec)
			}
		}
		if up != "" {
			req.Header.Set(UpSignatureHeader, up)
		}
		allGood := (spec == "" || spec == good) && (up == "" || up == good) && spec+up != "" && !repeated && bank.WebhookOf(body) != ""

		before := countRows(t, st, "")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		after := countRows(t, st, "")

		switch {
		case rec.Code >= 500:
			t.Fatalf("status %d with a working store", rec.Code)
		case rec.Code == http.StatusOK:
			if !allGood {
				t.Fatalf("accepted with %s=%q %s=%q (mode %d), correct %q", SignatureHeader, spec, UpSignatureHeader, up, mode, good)
			}
			if id := eventID(body); id == "" || countRows(t, st, id) != 1 {
				t.Fatalf("200 but no row for %q", id)
			}
		default:
			if allGood && rec.Code == http.StatusUnauthorized {
				t.Fatalf("correct signatures refused (mode %d)", mode)
			}
			if after != before {
				t.Fatalf("status %d but rows went from %d to %d", rec.Code, before, after)
			}
		}
	})
}
