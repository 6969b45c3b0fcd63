package ynab

import "testing"

func TestImportIDGenerations(t *testing.T) {
	const bank = "0f8e2c1a-5b7d-4e3f-9a1b-2c3d4e5f6a7b"
	for gen := 1; gen <= 99; gen++ {
		imp, err := encodeImportID(bank, gen)
		if err != nil {
			t.Fatalf("generation %d: %v", gen, err)
		}
		if len(imp) > maxImportID || (gen > 1) == (imp == bank) {
			t.Fatalf("generation %d: %q", gen, imp)
		}
		if b, g := decodeImportID(imp); b != bank || g != gen {
			t.Fatalf("generation %d: %q decodes to %q, %d", gen, imp, b, g)
		}
	}
	if _, err := encodeImportID(bank, 100); err == nil {
		t.Fatal("generation 100 encoded")
	}
	if _, err := encodeImportID("not-a-uuid", 2); err == nil {
		t.Fatal("a non-uuid bank id re-imported")
	}
	if _, err := encodeImportID(bank+"x", 1); err == nil {
		t.Fatal("37 characters accepted")
	}
	// Import ids not made by the feed read as themselves.
	for _, imp := range []string{"YNAB:-294230:2015-12-30:1", "r1:0f8e2c1a5b7d4e3f9a1b2c3d4e5f6a7b", "r2:0F8E"} {
		if b, g := decodeImportID(imp); b != imp || g != 1 {
			t.Fatalf("%q decodes to %q, %d", imp, b, g)
		}
	}
}
