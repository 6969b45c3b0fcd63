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
	Y, W  float64
}

// hbarChart is this month's spending by category.
type hbarChart struct {
	Bars   []hbar
	Height float64
}

// Geometry of hbarChart: labels on the left, bars from barX, amounts
// after each bar.
const (
	hbarRow   = 26.0
	hbarX     = 190.0
	hbarMaxW  = 300.0
	hbarLabel = 26 // characters of a label shown in the chart (the table has them whole)
)

func newHBarChart(bars []hbar) hbarChart {
	var max int64
	for _, b := range bars {
		max = maxInt(max, b.Cents)
	}
	for i := range bars {
		bars[i].Y = float64(i) * hbarRow
		if max > 0 && bars[i].Cents > 0 {
			bars[i].W = hbarMaxW * float64(bars[i].Cents) / float64(max)
		}
	}
	return hbarChart{Bars: bars, Height: float64(len(bars))*hbarRow + 4}
}

// Short is the label cut to fit the chart.
func (b hbar) Short() string {
	r := []rune(b.Label)
	if len(r) <= hbarLabel {
		return b.Label
	}
	return string(r[:hbarLabel-1]) + "…"
}

// monthsChart is twelve months of spending and income, side by side.
type monthsChart struct {
	Groups []monthGroup
	Max    int64
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
)

func newMonthsChart(months []string, spent, income map[string]int64) monthsChart {
	c := monthsChart{}
	for _, m := range months {
		c.Max = maxInt(c.Max, maxInt(spent[m], income[m]))
	}
	for i, m := range months {
		g := monthGroup{Month: m, Spent: spent[m], Income: income[m], X: float64(i)*monthsGroup + 6}
		g.TxtX = g.X + monthsBar
		g.SpentH, g.IncomeH = barHeight(g.Spent, c.Max), barHeight(g.Income, c.Max)
		g.SpentY, g.IncomeY = monthsTop+monthsPlotH-g.SpentH, monthsTop+monthsPlotH-g.IncomeH
		c.Groups = append(c.Groups, g)
	}
	return c
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
