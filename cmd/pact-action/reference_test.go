package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/cmdline"
	goldenfile "github.com/pact-action/pact-action/internal/testkit/golden"
)

// TestCLIReference: every verb answers --help with exit 0 and its own
// usage, and docs/cli/pact-action.md is exactly those texts (go generate
// ./cmd/pact-action rewrites it).
func TestCLIReference(t *testing.T) {
	t.Parallel()
	doc, err := cmdline.Reference(commands(nil, nil, nil, nil), func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, nil, &stdout, &stderr, func(string) string { return "" })
		want := "pact-action — enforce the Pact protocol v1 on pull requests"
		if len(args) > 1 {
			want = "usage: pact-action " + args[0]
		}
		if code != 0 || stderr.Len() > 0 || !strings.HasPrefix(stdout.String(), want) {
			return "", fmt.Errorf("pact-action %q: exit %d, want 0 and %q first\n%s%s", args, code, want, stdout.String(), stderr.String())
		}
		return stdout.String(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("..", "..", "docs", "cli", "pact-action.md"), doc)
}
