package store

import (
	"testing"
	"time"
)

// localize's date and month are those time.Format gives, in and out of
// the years of four digits.
func TestLocalizeMatchesFormat(t *testing.T) {
	melbourne, err := time.LoadLocation("Australia/Melbourne")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{
		time.Date(2026, 4, 5, 15, 59, 59, 0, time.UTC), // Melbourne leaves daylight time: 6 April, 01:59:59
		time.Date(2025, 12, 31, 13, 0, 0, 0, time.UTC), // 1 January in Melbourne
		time.Date(9999, 12, 31, 20, 0, 0, 0, time.UTC), // year 10000 in Melbourne
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		l := at.In(melbourne)
		want := stamped{at.Unix(), l.Format(time.DateTime), l.Format(time.DateOnly), l.Format("2006-01")}
		if got := localize(at, melbourne); got != want {
			t.Errorf("localize(%s) = %v, want %v", at, got, want)
		}
	}
}
