package projection

import "testing"

// TestParseSmallIntSaturates: a protocol_version is exact below 1<<30 and
// saturates there, on 32-bit builds too (2147483648 once wrapped to a
// negative int there and read as "less than 1").
func TestParseSmallIntSaturates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"0", 0}, {"1", 1}, {"2", 2}, {"1073741823", 1<<30 - 1}, {"1073741824", 1 << 30},
		{"1073741829", 1 << 30}, {"2147483647", 1 << 30}, {"2147483648", 1 << 30},
		{"4294967296", 1 << 30}, {"99999999999999999999999", 1 << 30},
	} {
		if got, err := parseSmallInt([]byte(tc.in)); err != nil || got != tc.want {
			t.Errorf("parseSmallInt(%s) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"-1", "1.0", "1e3", "x"} {
		if _, err := parseSmallInt([]byte(bad)); err == nil {
			t.Errorf("parseSmallInt(%q) accepted", bad)
		}
	}
}
