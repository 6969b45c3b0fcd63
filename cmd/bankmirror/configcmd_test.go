package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestConfigCommandRedactsSecrets(t *testing.T) {
	var out, errOut bytes.Buffer
	env := map[string]string{
		"BANKMIRROR_TOKEN":          "tok-SHOULD-NOT-APPEAR",
		"BANKMIRROR_WEBHOOK_SECRET": "whsec-SHOULD-NOT-APPEAR",
		"BANKMIRROR_LISTEN":         "127.0.0.1:9999",
	}
	if code := run(context.Background(), []string{"config"}, env, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	if strings.Contains(s, "SHOULD-NOT-APPEAR") {
		t.Fatalf("a secret was printed:\n%s", s)
	}
	for _, want := range []string{"BANKMIRROR_TOKEN", "(set, redacted)", "BANKMIRROR_LISTEN", "127.0.0.1:9999", "BANKMIRROR_SYNC_SCHEDULE", "@every 30m"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "TOKEN_FILE") {
		t.Errorf("TOKEN_FILE listed separately:\n%s", s)
	}
}
