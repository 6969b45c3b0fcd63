//go:build linux && cgo

package main

import (
	"debug/elf"
	"testing"
)

// The built command carries internal/malloc's C constructor, which sets
// glibc's malloc to one arena before the Go runtime starts threads, and
// lists it in .init_array so that it runs: the package is linked only if
// the command's imports reach it. The command is built with `go build`,
// which keeps the symbol table that the test binary lacks.
func TestCommandRunsTheMallocArenaConstructor(t *testing.T) {
	exe := buildBankmirror(t)
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var addr uint64
	for _, s := range syms {
		if s.Name == "bankmirror_one_malloc_arena" && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			addr = s.Value
		}
	}
	if addr == 0 {
		t.Fatal("bankmirror_one_malloc_arena is not in the binary")
	}
	if f.Class != elf.ELFCLASS64 {
		t.Skipf("reads 64-bit .init_array entries, the binary is %v", f.Class)
	}
	sec := f.Section(".init_array")
	if sec == nil {
		t.Fatal("the binary has no .init_array")
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+8 <= len(data); i += 8 {
		if f.ByteOrder.Uint64(data[i:]) == addr {
			return
		}
	}
	t.Errorf("bankmirror_one_malloc_arena (%#x) is not in .init_array (%d entries)", addr, len(data)/8)
}
