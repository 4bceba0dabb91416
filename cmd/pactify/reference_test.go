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
// usage, and docs/cli/pactify.md is exactly those texts (go generate
// ./cmd/pactify rewrites it).
func TestCLIReference(t *testing.T) {
	t.Parallel()
	c := &cli{}
	doc, err := cmdline.Reference(c.commands(), func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, nil, &stdout, &stderr, func(string) string { return "" })
		want := "pactify — the Pact protocol v1 command line"
		if len(args) > 1 {
			want = "usage: pactify " + args[0]
		}
		if code != 0 || stderr.Len() > 0 || !strings.HasPrefix(stdout.String(), want) {
			return "", fmt.Errorf("pactify %q: exit %d, want 0 and %q first\n%s%s", args, code, want, stdout.String(), stderr.String())
		}
		return stdout.String(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("..", "..", "docs", "cli", "pactify.md"), doc)
}
