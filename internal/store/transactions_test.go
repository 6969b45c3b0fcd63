package store

import (
	"encoding/hex"
	"testing"
)

// content_hash is the same for the same values, release after release:
// a changed encoding would make the next sync rewrite every row, each with
// an 'updated' history row. The tags count as a set.
func TestContentHashIsStable(t *testing.T) {
	vals := []any{"acc", nil, int64(-1234), true, false, "", "Café"}
	var buf []byte
	for _, c := range []struct {
		tags []string
		want string
	}{
		{[]string{"zeta", "alpha"}, "f926fdb0a4a954df8498c184b08a3dc8e87165b656ad02d1906f7c51398067ef"},
		{[]string{"alpha", "zeta"}, "f926fdb0a4a954df8498c184b08a3dc8e87165b656ad02d1906f7c51398067ef"},
		{nil, "137d5c7eef5b60ab27d6442162c22807281d81ad24c5cc41ee44993257537eda"},
	} {
		var got []byte
		got, buf = contentHash(buf, vals, c.tags)
		if hex.EncodeToString(got) != c.want {
			t.Errorf("contentHash(%v) = %x, want %s", c.tags, got, c.want)
		}
	}
}
