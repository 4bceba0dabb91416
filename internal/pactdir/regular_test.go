package pactdir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadRegular(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, ".pact", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, ".pact", "log.jsonl"), []byte("line\n"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("token=hunter2\n"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, ".pact", "escape")))
	must(os.Symlink("../../etc/passwd", filepath.Join(root, ".pact", "relative-escape")))
	must(os.Symlink("/dev/zero", filepath.Join(root, ".pact", "zero")))
	must(os.Symlink("log.jsonl", filepath.Join(root, ".pact", "inside")))
	must(syscall.Mkfifo(filepath.Join(root, ".pact", "fifo"), 0o644))
	must(os.Symlink("fifo", filepath.Join(root, ".pact", "to-fifo")))
	must(os.WriteFile(filepath.Join(root, ".pact", "big"), make([]byte, 2048), 0o644))

	for _, tc := range []struct {
		name string
		want string
		err  error
	}{
		{name: ".pact/log.jsonl", want: "line\n"},
		{name: ".pact/inside", want: "line\n"},
		{name: ".pact/missing"},
		{name: ".pact/escape", err: ErrNotRegular},
		{name: ".pact/relative-escape", err: ErrNotRegular},
		{name: ".pact/zero", err: ErrNotRegular},
		{name: ".pact/fifo", err: ErrNotRegular},
		{name: ".pact/to-fifo", err: ErrNotRegular},
		{name: ".pact/sub", err: ErrNotRegular},
		{name: ".pact/big", err: ErrTooLarge},
		{name: "../" + filepath.Base(outside) + "/secret", err: ErrNotRegular},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = ReadRegular(context.Background(), root, tc.name, 1024)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadRegular blocked")
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				if got != nil {
					t.Errorf("returned %d bytes with the error", len(got))
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("= %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadRegular(ctx, root, ".pact/log.jsonl", 1024); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: err = %v", err)
	}
}
