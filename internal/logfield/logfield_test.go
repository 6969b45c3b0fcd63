package logfield_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
)

// A duration is written in the unit its key names: 1.5 s as 1500 under
// duration_ms, 250 µs as 0.25.
func TestDurationsAreMilliseconds(t *testing.T) {
	// Another unit set before, as by a library at import.
	zerolog.DurationFieldUnit, zerolog.DurationFieldInteger = time.Second, true
	logfield.UseUnits()
	var b bytes.Buffer
	log := zerolog.New(&b)
	log.Info().Dur(logfield.Duration, 1500*time.Millisecond).Dur(logfield.Wait, 250*time.Microsecond).Msg("")
	var got struct {
		Duration float64 `json:"duration_ms"`
		Wait     float64 `json:"wait_ms"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, b.String())
	}
	if got.Duration != 1500 || got.Wait != 0.25 {
		t.Errorf("logged %s", b.String())
	}
}
