package prose

import "testing"

func TestProse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ got, want string }{
		{Plural(0, "error"), "0 errors"},
		{Plural(1, "error"), "1 error"},
		{Plural(2, "more problem"), "2 more problems"},
		{ShortSHA("0123456789abcdef0123456789abcdef01234567"), "0123456789ab"},
		{ShortSHA("abc"), "abc"},
		{OneLine("a\r\nb\nc\rd"), "a b c d"},
		{FirstLine("a\nb\nc"), "a"},
		{FirstLine("no break"), "no break"},
		{List([]string{"a", "b"}, 3), "a, b"},
		{List([]string{"a", "b", "c", "d"}, 2), "a, b, and 2 more"},
		{Lines([]int{3}), "line 3"},
		{Lines([]int{3, 4, 5}), "lines 3, 4, 5"},
		{Lines([]int{1, 2, 3, 4, 5, 6, 7}), "lines 1, 2, 3, 4, 5, and 2 more"},
		{LineSpan([]int{3}), "line 3"},
		{LineSpan([]int{3, 4, 5}), "lines 3–5"},
		{LineSpan([]int{3, 7, 9}), "lines 3, 7, 9"},
		{LineSpan([]int{1, 3, 5, 7, 9, 11}), "lines 1, 3, 5, 7, 9, and 1 more"},
		{Truncate("héllo", 10), "héllo"},
		{Truncate("héllo", 2), "hé…"},
		{Clip("short", 10, "…"), "short"},
		{Clip("abcdefghij", 8, "\n…"), "abcd\n…"},
		{Clip("aéééé", 6, "!"), "aéé!"},
		{Bytes(1), "1 byte"},
		{Bytes(1023), "1023 bytes"},
		{Bytes(1536), "1.5 KiB"},
		{Bytes(256 << 20), "256 MiB"},
		{Bytes(100_000_000), "95 MiB"},
		{Bytes(3 << 30), "3 GiB"},
		{Bytes(3<<30 + 400<<20), "3.4 GiB"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
