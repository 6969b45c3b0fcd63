package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
)

// The twelve-month chart has a scale of round amounts from $0 to the
// largest month.
func TestMonthsChartScale(t *testing.T) {
	c := newMonthsChart([]string{"2026-01", "2026-02"}, map[string]int64{"2026-01": 1_234_56}, map[string]int64{"2026-02": 987_00})
	var labels []string
	for _, tk := range c.Ticks {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "$0 $500 $1k" {
		t.Errorf("scale %q, want $0 $500 $1k", got)
	}
	if c.Ticks[0].Y != monthsTop+monthsPlotH || c.Ticks[2].Y >= c.Ticks[1].Y {
		t.Errorf("ticks %+v: want $0 on the axis and higher amounts above", c.Ticks)
	}
	if len(newMonthsChart([]string{"2026-01"}, nil, nil).Ticks) != 0 {
		t.Error("a scale for twelve empty months")
	}
}

// A category label is cut only when longer than the widest label column.
func TestHBarLabelsCutOnlyWhenTooLong(t *testing.T) {
	long := "Good Life / Holidays & Travel"
	c := newHBarChart([]hbar{{Label: long, Cents: 100}, {Label: strings.Repeat("x", 80), Cents: 50}})
	if c.Bars[0].Short != long {
		t.Errorf("label %q shown as %q", long, c.Bars[0].Short)
	}
	if r := []rune(c.Bars[1].Short); len(r) >= 80 || r[len(r)-1] != '…' {
		t.Errorf("an 80-character label shown as %q, want it cut", c.Bars[1].Short)
	}
	if c.Bars[0].X+c.Bars[0].W+hbarAmountW > hbarWidth+1 {
		t.Errorf("the longest bar and its amount overflow the chart: %+v", c.Bars[0])
	}
}

// A label ends short of its bar in a wide font: "Home / Maintenance &
// Improvements" is 228.6 units at 12px in DejaVu Sans (the sum of its
// characters' advance widths), and its column leaves room after that. The
// labels are clipped short of the bars, whatever the font.
func TestHBarLabelEndsBeforeItsBar(t *testing.T) {
	const label, dejaVuWidth = "Home / Maintenance & Improvements", 228.6
	c := newHBarChart([]hbar{{Label: label, Cents: 100}, {Label: "Transport / Fuel", Cents: 50}})
	if c.Bars[0].Short != label {
		t.Fatalf("label %q shown as %q", label, c.Bars[0].Short)
	}
	if room := c.Bars[0].X - dejaVuWidth; room < 8 {
		t.Errorf("the bar starts %.1f units after the label in DejaVu Sans, want 8 or more", room)
	}
	if c.LabelClip <= dejaVuWidth || c.LabelClip >= c.Bars[0].X {
		t.Errorf("labels clipped at %.1f, want between the label's %.1f and the bar at %.1f", c.LabelClip, dejaVuWidth, c.Bars[0].X)
	}
}

// A new mirror's accounts, one balance each, get one note, not one a row.
func TestTrendNoteSaidOnce(t *testing.T) {
	one := []accountView{{Trend: newSpark([]store.DailyBalance{{Date: "2026-11-02"}})}, {Trend: newSpark([]store.DailyBalance{{Date: "2026-11-01"}})}}
	if n := trendNote(one); !strings.Contains(n, "One balance of each account observed so far (2026-11-01)") {
		t.Errorf("note %q", n)
	}
	two := append(slices.Clone(one), accountView{Trend: newSpark([]store.DailyBalance{{Date: "2026-11-01"}, {Date: "2026-11-02"}})})
	if n := trendNote(two); n != "" {
		t.Errorf("an account with a trend, and still the note %q", n)
	}
}
