package simulator

import (
	"slices"
	"testing"
	"time"
)

func TestFlagsOptions(t *testing.T) {
	at := "2025-01-02T03:04:05Z"
	opts, every, err := Flags{Transactions: 0, Now: at, Live: "30/m", WebhookRetry: "1s,10s,5",
		SignatureHeader: "X-Up-Authenticity-Signature", RateLimit: 1000, RateBucket: time.Hour, RateOffset: 59 * time.Minute}.Options()
	if err != nil {
		t.Fatal(err)
	}
	if !opts.Empty || opts.Now == nil || opts.Now().Format(time.RFC3339) != at || every != 2*time.Second ||
		opts.WebhookRetryBase != time.Second || opts.WebhookRetryMax != 10*time.Second || opts.WebhookMaxAttempts != 5 ||
		opts.WebhookSignatureHeader != "X-Up-Authenticity-Signature" ||
		opts.RateLimit.Limit != 1000 || opts.RateLimit.Bucket != time.Hour || opts.RateLimit.Offset != 59*time.Minute {
		t.Errorf("options %+v, live every %v", opts, every)
	}
	if opts, _, _ := (Flags{Transactions: 50, RateBucket: time.Hour}).Options(); opts.Empty || opts.Transactions != 50 || opts.RateLimit.Limit != 0 {
		t.Errorf("--transactions 50 --rate-limit 0: %+v", opts)
	}
	opts, _, err = Flags{Transactions: 100, RateBucket: time.Hour, People: "alex,sam", Token: "sam=S", JointTransactions: ptrTo(0), JointWebhooks: true}.Options()
	if err != nil || !slices.Equal(opts.People, []string{"alex", "sam"}) || opts.Tokens["sam"] != "S" || opts.Tokens["alex"] != "" ||
		!opts.JointWebhooks || opts.JointTransactions != -1 {
		t.Errorf("household options %+v, %v", opts, err)
	}
	for _, bad := range []Flags{
		{RateBucket: time.Hour, People: "alex,Sam"},
		{RateBucket: time.Hour, People: "alex,alex"},
		{RateBucket: time.Hour, People: "alex,"},
		{RateBucket: time.Hour, People: "alex,sam", Token: "T"},
		{RateBucket: time.Hour, People: "alex,sam", Token: "kim=T"},
		{RateBucket: time.Hour, People: "alex,sam", Token: "alex=T,alex=U"},
		{RateBucket: time.Hour, JointWebhooks: true},
		{RateBucket: time.Hour, JointTransactions: ptrTo(5)},
		{Transactions: -1, RateBucket: time.Hour},
		{Now: "yesterday", RateBucket: time.Hour},
		{Live: "fast", RateBucket: time.Hour},
		{Live: "0/s", RateBucket: time.Hour},
		{WebhookRetry: "1s,10s", RateBucket: time.Hour},
		{WebhookRetry: "10s,1s,3", RateBucket: time.Hour},
		{RateLimit: -1, RateBucket: time.Hour},
		{RateBucket: 0},
		{RateBucket: time.Hour, RateOffset: time.Hour},
		{RateBucket: time.Hour, RateOffset: -time.Second},
		{SignatureHeader: "X-Up Signature", RateBucket: time.Hour},
		{SignatureHeader: "X-Up:", RateBucket: time.Hour},
	} {
		if _, _, err := bad.Options(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
