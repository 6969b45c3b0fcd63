package receiver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

// The receiver reads the header maps directly, so the names must be in
// canonical form.
func TestSignatureHeadersAreCanonical(t *testing.T) {
	for _, h := range []string{SignatureHeader, UpSignatureHeader} {
		if c := http.CanonicalHeaderKey(h); c != h {
			t.Errorf("%q is not canonical (%q)", h, c)
		}
	}
}

// A delivery is accepted signed in the spec's header or in the real bank's,
// with the same secrets; with both present, both must verify; a header
// given twice, malformed or wrong is refused before the store is touched.
func TestSignatureInEitherHeader(t *testing.T) {
	body := eventBody("ev-hdr", "TRANSACTION_CREATED", "tx-1")
	goodA, goodB := sign(body, secretA), sign(body, secretB)
	forged := sign(body, []byte("not-a-secret"))
	tests := []struct {
		name       string
		spec, up   []string // values of each header; nil = absent
		wantStatus int
		wantReason string // "" for accepted
	}{
		{name: "spec header", spec: []string{goodA}, wantStatus: 200},
		{name: "up header", up: []string{goodA}, wantStatus: 200},
		{name: "up header, second secret", up: []string{goodB}, wantStatus: 200},
		{name: "both, same value", spec: []string{goodA}, up: []string{goodA}, wantStatus: 200},
		{name: "both valid, different secrets", spec: []string{goodA}, up: []string{goodB}, wantStatus: 200},
		{name: "up valid, spec empty", spec: []string{""}, up: []string{goodA}, wantStatus: 200},
		{name: "up forged", up: []string{forged}, wantStatus: 401, wantReason: ReasonSignatureInvalid},
		{name: "up forged, spec valid", spec: []string{goodA}, up: []string{forged}, wantStatus: 401, wantReason: ReasonSignatureInvalid},
		{name: "up valid, spec forged", spec: []string{forged}, up: []string{goodA}, wantStatus: 401, wantReason: ReasonSignatureInvalid},
		{name: "up valid, spec malformed", spec: []string{"xyz"}, up: []string{goodA}, wantStatus: 401, wantReason: ReasonSignatureMalformed},
		{name: "up upper case", up: []string{string(bytes.ToUpper([]byte(goodA)))}, wantStatus: 401, wantReason: ReasonSignatureMalformed},
		{name: "up given twice", up: []string{goodA, goodA}, wantStatus: 401, wantReason: ReasonSignatureMalformed},
		{name: "spec given twice", spec: []string{goodA, forged}, wantStatus: 401, wantReason: ReasonSignatureMalformed},
		{name: "both empty", spec: []string{""}, up: []string{""}, wantStatus: 401, wantReason: ReasonSignatureMissing},
		{name: "neither", wantStatus: 401, wantReason: ReasonSignatureMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustOpenStore(t)
			var mu sync.Mutex
			var reasons []string
			r := mustStart(t, st, Config{
				Keys: newSecretSet(secretA, secretB),
				OnRefused: func(reason string) {
					mu.Lock()
					defer mu.Unlock()
					reasons = append(reasons, reason)
				},
			})
			req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
			for _, v := range tt.spec {
				req.Header.Add(SignatureHeader, v)
			}
			for _, v := range tt.up {
				req.Header.Add(UpSignatureHeader, v)
			}
			rec := httptest.NewRecorder()
			r.Handler().ServeHTTP(rec, req)

			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", rec.Code, tt.wantStatus, rec.Body)
			}
			wantRows := 0
			if tt.wantStatus == http.StatusOK {
				wantRows = 1
			}
			if got := countRows(t, st, "ev-hdr"); got != wantRows {
				t.Errorf("rows = %d, want %d", got, wantRows)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case tt.wantReason == "" && len(reasons) != 0:
				t.Errorf("accepted delivery counted as refused: %v", reasons)
			case tt.wantReason != "" && (len(reasons) != 1 || reasons[0] != tt.wantReason):
				t.Errorf("refusals = %v, want [%s]", reasons, tt.wantReason)
			}
		})
	}
}

// A delivery in the real bank's header signed with a secret stored after
// the daemon's cache (webhooks.SecretCache) was loaded is accepted on its
// first attempt, as in the spec's header: the miss reloads the secrets for
// both.
func TestUpHeaderReloadsSecretsOnAMiss(t *testing.T) {
	ctx := context.Background()
	src := &countingSecrets{Store: mustOpenStore(t)}
	saveSecret := func(id string, secret []byte) {
		t.Helper()
		if err := src.SaveWebhook(ctx, store.Webhook{ID: id, URL: "https://bank-hooks.example/webhook",
			SecretKey: string(secret), CreatedAt: "2024-08-05T12:20:07+10:00"}); err != nil {
			t.Fatal(err)
		}
	}
	saveSecret("wh-1", secretA)
	cache := webhooks.NewSecretCache(src, nil, time.Hour, zerolog.Nop())
	if err := cache.Load(ctx); err != nil {
		t.Fatal(err)
	}
	h := mustStart(t, src.Store, Config{Keys: cache}).Handler()
	saveSecret("wh-2", secretB)
	body := hookBody("wh-2", "ev-up-new", "TRANSACTION_CREATED", "tx-1")
	req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	req.Header.Set(UpSignatureHeader, sign(body, secretB))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("first delivery in %s signed with a newly stored secret: %d", UpSignatureHeader, rec.Code)
	}
	if n := src.loads.Load(); n != 2 {
		t.Errorf("secrets read %d times, want 2 (the start, the miss)", n)
	}
}

// Parsing the signature headers allocates nothing, whichever header holds
// the signature.
func TestRequestSignaturesDoNotAllocate(t *testing.T) {
	body := eventBody("ev-alloc", "PING", "")
	for _, name := range []string{SignatureHeader, UpSignatureHeader} {
		h := http.Header{}
		h.Set(name, sign(body, secretA))
		var reason string
		if n := testing.AllocsPerRun(100, func() { _, reason = requestSignatures(h) }); n != 0 {
			t.Errorf("%s: %v allocations per request", name, n)
		}
		if reason != "" {
			t.Errorf("%s: refused as %s", name, reason)
		}
	}
}
