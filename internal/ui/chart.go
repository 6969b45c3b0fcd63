package ui

import (
	"fmt"
	"strings"

	"github.com/bankmirror/bankmirror/internal/store"
)

// Charts are drawn by the templates as inline SVG from the geometry
// computed here (viewBox units); each template also shows the numbers as
// a table. Nothing is drawn in the browser.

// hbar is one bar of a horizontal bar chart: a category's spending.
type hbar struct {
	Label string
	Link  string
	Cents int64
	// Short is the label as the chart shows it, cut only when it is longer
	// than the widest label column allows.
	Short   string
	X, Y, W float64
	AmountX float64
}

// hbarChart is this month's spending by category.
type hbarChart struct {
	Bars   []hbar
	Height float64
	// LabelClip is the width the labels are clipped to, hbarGap short of
	// the bars: a font wider than the estimate cuts a label rather than
	// running it into its bar.
	LabelClip float64
}

// Geometry of hbarChart, in a viewBox hbarWidth wide: the labels' column
// as wide as the longest label needs (between hbarMinLabel and
// hbarMaxLabel), the bars after it, the amount after each bar.
const (
	hbarWidth = 720.0
	hbarRow   = 26.0
	// hbarCharW is a character's width at 12px, on the wide side: DejaVu
	// Sans, which system-ui is on many Linux desktops, averages 0.6 em.
	hbarCharW    = 7.2
	hbarGap      = 12.0 // between a label and its bar
	hbarMinLabel = 120.0
	hbarMaxLabel = 360.0
	hbarAmountW  = 96.0
)

func newHBarChart(bars []hbar) hbarChart {
	var top int64
	longest := 0
	for _, b := range bars {
		top = maxInt(top, b.Cents)
		longest = max(longest, len([]rune(b.Label)))
	}
	labelW := min(max(float64(longest)*hbarCharW+hbarGap, hbarMinLabel), hbarMaxLabel)
	chars := int((labelW - hbarGap) / hbarCharW)
	barMax := hbarWidth - labelW - hbarAmountW
	for i := range bars {
		bars[i].Short = short(chars, bars[i].Label)
		bars[i].X, bars[i].Y = labelW, float64(i)*hbarRow
		if top > 0 && bars[i].Cents > 0 {
			bars[i].W = barMax * float64(bars[i].Cents) / float64(top)
		}
		bars[i].AmountX = labelW + bars[i].W + 6
	}
	return hbarChart{Bars: bars, Height: float64(len(bars))*hbarRow + 4, LabelClip: labelW - hbarGap}
}

// monthsChart is twelve months of spending and income, side by side,
// with a scale: lines at round amounts, labelled on the left.
type monthsChart struct {
	Groups []monthGroup
	Max    int64
	Ticks  []tick
}

// tick is a line of the scale.
type tick struct {
	Y     float64
	Label string
}

type monthGroup struct {
	Month                  string
	Spent, Income          int64
	X, SpentY, SpentH      float64
	IncomeY, IncomeH, TxtX float64
}

// Geometry of monthsChart: a plot area of monthsPlotH under a top margin.
const (
	monthsTop   = 16.0
	monthsPlotH = 180.0
	monthsGroup = 60.0
	monthsBar   = 22.0
	monthsAxisW = 56.0 // the scale's labels, left of the bars
)

func newMonthsChart(months []string, spent, income map[string]int64) monthsChart {
	c := monthsChart{}
	for _, m := range months {
		c.Max = maxInt(c.Max, maxInt(spent[m], income[m]))
	}
	for i, m := range months {
		g := monthGroup{Month: m, Spent: spent[m], Income: income[m], X: monthsAxisW + float64(i)*monthsGroup + 6}
		g.TxtX = g.X + monthsBar
		g.SpentH, g.IncomeH = barHeight(g.Spent, c.Max), barHeight(g.Income, c.Max)
		g.SpentY, g.IncomeY = monthsTop+monthsPlotH-g.SpentH, monthsTop+monthsPlotH-g.IncomeH
		c.Groups = append(c.Groups, g)
	}
	if c.Max > 0 {
		step := niceStep(c.Max / 4)
		for v := int64(0); v <= c.Max; v += step {
			c.Ticks = append(c.Ticks, tick{Y: monthsTop + monthsPlotH - barHeight(v, c.Max), Label: compactMoney(v)})
		}
	}
	return c
}

// niceStep is the smallest of 1, 2 or 5 times a power of ten (in dollars,
// as cents) at least cents.
func niceStep(cents int64) int64 {
	for p := int64(100); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= cents {
				return m * p
			}
		}
	}
}

// compactMoney is a round amount of the scale: $0, $500, $2k, $1.5m.
func compactMoney(cents int64) string {
	d := cents / 100
	switch {
	case d >= 1_000_000:
		return "$" + strings.TrimSuffix(fmt.Sprintf("%.1f", float64(d)/1e6), ".0") + "m"
	case d >= 1000:
		return "$" + strings.TrimSuffix(fmt.Sprintf("%.1f", float64(d)/1e3), ".0") + "k"
	default:
		return fmt.Sprintf("$%d", d)
	}
}

func barHeight(v, max int64) float64 {
	if v <= 0 || max <= 0 {
		return 0
	}
	return monthsPlotH * float64(v) / float64(max)
}

// spark is an account's balance over the last days, as an SVG polyline.
type spark struct {
	Points         string
	First, Last    string // dates
	Low, High      int64
	Width, Height  float64
	Change         int64
	Observed, Days int
}

const (
	sparkW = 200.0
	sparkH = 40.0
)

func newSpark(days []store.DailyBalance) spark {
	s := spark{Width: sparkW, Height: sparkH, Days: len(days)}
	if len(days) == 0 {
		return s
	}
	s.Low, s.High = days[0].Cents, days[0].Cents
	for _, d := range days {
		s.Low, s.High = min(s.Low, d.Cents), max(s.High, d.Cents)
	}
	s.First, s.Last = days[0].Date, days[len(days)-1].Date
	s.Change = days[len(days)-1].Cents - days[0].Cents
	var b strings.Builder
	for i, d := range days {
		x := 0.0
		if len(days) > 1 {
			x = sparkW * float64(i) / float64(len(days)-1)
		}
		y := sparkH / 2
		if s.High > s.Low {
			y = 2 + (sparkH-4)*float64(s.High-d.Cents)/float64(s.High-s.Low)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", x, y)
	}
	s.Points = b.String()
	return s
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
