package receiver

import (
	"net/http"
	"testing"
)

// While a webhook registration is in progress, a delivery signed with a
// secret not stored yet is answered 503 (the bank retries) and stored
// nowhere; once the secret is stored it is accepted.
func TestUnknownSignatureDuringRegistrationIsRetried(t *testing.T) {
	st := mustOpenStore(t)
	secrets := newSecretSet(secretA)
	secrets.setRegistering(true)
	r := mustStart(t, st, Config{Keys: secrets})
	h := r.Handler()
	body := eventBody("ev-reg", "TRANSACTION_CREATED", "tx-1")

	if rec := post(h, body, sign(body, secretB)); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("during registration: status %d, want 503", rec.Code)
	}
	if n := countRows(t, st, ""); n != 0 {
		t.Fatalf("%d rows stored from an unverified delivery", n)
	}
	secrets.add(secretB)
	secrets.setRegistering(false)
	if rec := post(h, body, sign(body, secretB)); rec.Code != http.StatusOK {
		t.Fatalf("after registration: status %d, want 200", rec.Code)
	}
	// Outside a registration an unknown signature is 401 as always.
	other := eventBody("ev-other", "PING", "")
	if rec := post(h, other, sign(other, []byte("never-registered"))); rec.Code != http.StatusUnauthorized {
		t.Fatalf("outside registration: status %d, want 401", rec.Code)
	}
	if n := countRows(t, st, ""); n != 1 {
		t.Fatalf("rows = %d, want 1", n)
	}
}
