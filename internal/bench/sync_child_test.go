package bench

import (
	"testing"
	"time"
)

// A sync child's figures are those of its full sync's "sync finished"
// line: not a held listing's, nor another line's, and none is an error.
func TestSyncChildReadsTheFullSyncsLine(t *testing.T) {
	log := `{"level":"info","component":"sync","kind":"full","message":"sync started"}
not json
{"level":"info","component":"sync","kind":"incremental","requests":9,"listed":9,"duration_ms":9,"message":"sync finished"}
{"level":"info","component":"sync","run_id":1,"kind":"full","requests":1018,"upserted":100000,"deleted":0,"listed":100020,"duration_ms":4541.5,"message":"sync finished"}
`
	var res childSync
	if err := res.readLog([]byte(log)); err != nil {
		t.Fatal(err)
	}
	if res.listed != 100020 || res.requests != 1018 || res.duration != 4541500*time.Microsecond {
		t.Errorf("read %+v", res)
	}
	if err := (&childSync{}).readLog([]byte(`{"kind":"full","message":"sync started"}`)); err == nil {
		t.Error("a log without the line read as a sync")
	}
}
