package pactfile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestHolds: the file holds what the writer writes exactly when every byte
// agrees and neither runs past the other, across the comparer's 64 KiB
// steps; errors of the writer and of the reader are returned, never read
// as a difference.
func TestHolds(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 64<<10+1)
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		file    io.Reader
		written string
		fail    error
		want    bool
		wantErr error
	}{
		{name: "same", file: strings.NewReader("a\nb\n"), written: "a\nb\n", want: true},
		{name: "both empty", file: strings.NewReader(""), written: "", want: true},
		{name: "file longer", file: strings.NewReader("a\nb\nc"), written: "a\nb\n"},
		{name: "file shorter", file: strings.NewReader("a\n"), written: "a\nb\n"},
		{name: "one byte differs", file: strings.NewReader("a\nc\n"), written: "a\nb\n"},
		{name: "same past a step", file: strings.NewReader(big), written: big, want: true},
		{name: "last byte past a step differs", file: strings.NewReader(big[:len(big)-1] + "y"), written: big},
		{name: "writer fails", file: strings.NewReader("a"), written: "a", fail: boom, wantErr: boom},
		{name: "reader fails", file: iotest.ErrReader(boom), written: "a", wantErr: boom},
	} {
		got, err := Holds(tc.file, func(w io.Writer) error {
			if _, err := io.Copy(w, bytes.NewReader([]byte(tc.written))); err != nil {
				return err
			}
			return tc.fail
		})
		if got != tc.want || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
			t.Errorf("%s: Holds = %v, %v; want %v, %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
