package bench

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os/exec"

	"github.com/bankmirror/bankmirror/internal/simulator"
)

// bareURLPrefix starts the line on which `bankmirror bench bare` prints
// the URL it serves.
const bareURLPrefix = "BARE_URL="

// BareSecretVar is the environment variable `bankmirror bench bare` reads
// the webhook secret from (not an argument: other users see those).
const BareSecretVar = "BANKMIRROR_WEBHOOK_SECRET" //nolint:gosec // the name of an environment variable, not a secret

// Bare serves the receiver benchmark's baseline, a handler that only
// checks signatures (bareWebhookHandler), on a free loopback port with the
// daemon's HTTP server (its timeouts and limits; not the public listener's
// caps on connections, which only the daemon pays), until ctx ends, having
// printed BARE_URL= and its URL. bench receiver runs it in a child process, as it
// runs the daemon, so that the baseline does not share the load
// generator's process (and its scheduler) while the daemon cannot.
func Bare(ctx context.Context, env Env, path string) error {
	secret := env.Environ[BareSecretVar]
	if secret == "" {
		return fmt.Errorf("bench bare: %s is not set", BareSecretVar)
	}
	url, stop, err := serve(ctx, "127.0.0.1:0", bareWebhookHandler(path, []byte(secret)))
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(env.Stdout, "%s%s\n", bareURLPrefix, url)
	<-ctx.Done()
	return nil
}

// bareChild is `bankmirror bench bare` running as a child process.
type bareChild struct {
	url string
	cmd *exec.Cmd
}

// startBare starts `bankmirror bench bare` on path with secret and waits
// for its URL.
func (env Env) startBare(ctx context.Context, path, secret string) (*bareChild, error) {
	cmd, err := env.Command(ctx, "bench", "bare", "--path", path)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, append(benchChildEnv(env.Environ, nil, nil, "off"), BareSecretVar+"="+secret)...)
	b := &bareChild{cmd: cmd}
	if err := startPrinting(cmd, "bare handler", map[string]*string{bareURLPrefix: &b.url}); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *bareChild) pid() int { return b.cmd.Process.Pid }

func (b *bareChild) stop() { interruptAndWait(b.cmd) }

// bareWebhookHandler is the baseline: it reads the body, checks its
// signature and answers 200, storing nothing. It answers /healthz too.
func bareWebhookHandler(path string, secret []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			_, _ = io.WriteString(w, "ok")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		got, err := hex.DecodeString(r.Header.Get(simulator.SignatureHeader))
		m := hmac.New(sha256.New, secret)
		m.Write(body)
		if err != nil || !hmac.Equal(m.Sum(nil), got) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
}
