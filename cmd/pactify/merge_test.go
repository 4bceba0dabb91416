package main

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// TestReadPrefixOf: what is read is returned whole, as the start of a
// candidate it is (sharing its memory) or as a copy.
func TestReadPrefixOf(t *testing.T) {
	a, b := []byte("line 1\nline 2\nours\n"), []byte("line 1\nline 2\ntheirs\n")
	for _, c := range []struct {
		name   string
		read   string
		cands  [][]byte
		shared int // which candidate's memory it is (-1: a copy)
	}{
		{"the start of both", "line 1\nline 2\n", [][]byte{a, b}, 0},
		{"the start of the second only", "line 1\nline 2\nth", [][]byte{a, b}, 1},
		{"all of one", string(a), [][]byte{a, b}, 0},
		{"neither", "line 1\nother\n", [][]byte{a, b}, -1},
		{"longer than both", string(a) + "more\n", [][]byte{a, b}, -1},
		{"no candidates", "x\n", nil, -1},
		{"empty", "", [][]byte{a}, -1},
	} {
		got, err := readPrefixOf(iotest.HalfReader(bytes.NewReader([]byte(c.read))), c.cands...)
		if err != nil || string(got) != c.read {
			t.Errorf("%s: read %q, %v; want %q", c.name, got, err, c.read)
			continue
		}
		for i, cand := range c.cands {
			if shares := len(got) > 0 && &got[0] == &cand[0]; shares != (i == c.shared) {
				t.Errorf("%s: shares candidate %d's memory: %v", c.name, i, shares)
			}
		}
	}
}
