package main

import (
	"strings"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"", 0, true},
		{"1048576", 1 << 20, true},
		{"512MiB", 512 << 20, true},
		{" 1 GiB ", 1 << 30, true},
		{"64KiB", 64 << 10, true},
		{"100B", 100, true},
		{"0", 0, false},
		{"-5MiB", 0, false},
		{"1.5GiB", 0, false},
		{"1MB", 0, false},
		{"lots", 0, false},
		{"MiB", 0, false},
		{"9999999999999GiB", 0, false},
	} {
		got, err := parseByteSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzParseByteSize: any input is a positive size, the default (empty),
// or a refusal that quotes it; never a panic, nor an overflow (which
// would turn negative).
func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"", "1", "512MiB", "1 GiB", "9223372036854775807", "8589934592GiB", "-1", "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseByteSize(s)
		switch {
		case err != nil:
			if n != 0 || !strings.Contains(err.Error(), "is not a size") {
				t.Fatalf("parseByteSize(%q) = %d, %v", s, n, err)
			}
		case strings.TrimSpace(s) == "":
			if n != 0 {
				t.Fatalf("empty input = %d", n)
			}
		case n <= 0:
			t.Fatalf("parseByteSize(%q) = %d", s, n)
		}
	})
}
