package action

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/cmdline"
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

func TestReadDeadlines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  map[string]string
		want deadlines
		bad  string // the variable a refusal names
	}{
		{env: nil, want: deadlines{run: defaultRunBudget}},
		{env: map[string]string{"PACT_TIMEOUT": "90s", "PACT_REQUEST_TIMEOUT": " 5s ", "PACT_RUN_TIMEOUT": "1h"},
			want: deadlines{judgement: 90 * time.Second, request: 5 * time.Second, run: time.Hour}},
		{env: map[string]string{"PACT_REQUEST_TIMEOUT": "0s"}, bad: "PACT_REQUEST_TIMEOUT"},
		{env: map[string]string{"PACT_RUN_TIMEOUT": "-1m"}, bad: "PACT_RUN_TIMEOUT"},
		{env: map[string]string{"PACT_TIMEOUT": "10"}, bad: "PACT_TIMEOUT"},
	} {
		got, err := readDeadlines(func(k string) string { return tc.env[k] })
		switch {
		case tc.bad != "":
			var usage *cmdline.UsageError
			if !errors.As(err, &usage) || !strings.HasPrefix(usage.Msg, tc.bad+" ") {
				t.Errorf("readDeadlines(%v) = %v, want a usage error naming %s", tc.env, err, tc.bad)
			}
		case err != nil || got != tc.want:
			t.Errorf("readDeadlines(%v) = %+v, %v; want %+v", tc.env, got, err, tc.want)
		}
	}
}
