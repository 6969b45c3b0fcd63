package rules

import (
	"context"
	"testing"
	"time"

	"github.com/expr-lang/expr"
)

// A condition's date functions read the clock in the customer's zone, as
// weekday and hour are. No `when` may call now() or date() today (bounds.go
// refuses them at load), so this compiles one with now() let through, as
// one allowed later would be, in a zone whose hour is never UTC's: there
// now() agrees with hour and weekday, and in UTC it does not.
func TestDateFunctionsAreInTheCustomersZone(t *testing.T) {
	kolkata, err := time.LoadLocation("Asia/Kolkata") // UTC+5:30
	if err != nil {
		t.Fatal(err)
	}
	const when = "now().Hour() == hour && int(now().Weekday()) == weekday"
	compileIn := func(zone *time.Location) func(Transaction) bool {
		prog, err := expr.Compile(when, append(compileOptions(zone), expr.EnableBuiltin("now"))...)
		if err != nil {
			t.Fatal(err)
		}
		return func(tx Transaction) bool {
			var g guard
			g.reset(context.Background(), time.Now())
			ok, err := g.run(prog, &env{Transaction: tx, Guard: g.check})
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
	}
	inZone, inUTC := compileIn(kolkata), compileIn(time.UTC)
	for {
		local := time.Now().In(kolkata)
		tx := Transaction{Weekday: int(local.Weekday()), Hour: local.Hour()}
		matched, matchedUTC := inZone(tx), inUTC(tx)
		if time.Now().In(kolkata).Hour() != local.Hour() {
			continue // the hour turned while the conditions ran: again
		}
		if !matched {
			t.Errorf("now() in the customer's zone disagrees with hour %d and weekday %d", tx.Hour, tx.Weekday)
		}
		if matchedUTC {
			t.Errorf("now() in UTC agrees with Kolkata's hour %d: the test shows nothing", tx.Hour)
		}
		return
	}
}
