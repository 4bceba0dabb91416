package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The README's first command runs this on the shipped example; the exit
// codes are the documented contract.
func TestLocalCheckOnTheShippedExample(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"accepted feature is mergeable", []string{"check", "--local", "../../examples/demo", "--branch", "feat/login"}, exitOK,
			[]string{"pact: pact holds [success]", "| LOGIN | accepted | T1 |"}},
		{"waiting feature without a check run exits 4", []string{"check", "--local", "../../examples/demo", "--branch", "feat/signup"}, exitWaiting,
			[]string{"[action_required]", "waiting for T3 (feature SIGNUP): awaiting review by codex"}},
		{"fail-on never", []string{"check", "--local", "../../examples/demo", "--branch", "feat/signup", "--fail-on", "never"}, exitOK, nil},
		{"json format", []string{"check", "--local", "../../examples/demo", "--branch=feat/signup", "--format", "json"}, exitWaiting,
			[]string{`"conclusion": "action_required"`, `"code": "pr.unaccepted_feature"`}},
		{"a base log that the head extends", []string{"check", "--local", "../../examples/demo", "--branch", "feat/login", "--base-log", "testdata/base-prefix.jsonl"}, exitOK,
			[]string{"[success]"}},
		{"a base log the head rewrote", []string{"check", "--local", "../../examples/demo", "--branch", "feat/login", "--base-log", "testdata/base-rewritten.jsonl", "--format", "json"}, exitViolation,
			[]string{`"code": "log.rewritten"`, `"line": 2`}},
		{"unknown flag", []string{"check", "--local", "x", "--nope", "1"}, exitUsage, nil},
		{"no pact there", []string{"check", "--local", t.TempDir()}, exitUsage, nil},
		{"bad fail-on", []string{"check", "--local", "../../examples/demo", "--fail-on", "sometimes"}, exitUsage, nil},
		{"outside a workflow", nil, exitUsage, nil},
		{"sarif format for code scanning", []string{"check", "--local", "../../examples/demo", "--branch", "feat/signup", "--format", "sarif"}, exitWaiting,
			[]string{`"version": "2.1.0"`, `"name": "pact-action"`, `"ruleId": "pr.unaccepted_feature"`, `"partialFingerprints"`}},
		{"bad format", []string{"check", "--local", "../../examples/demo", "--format", "xml"}, exitUsage, nil},
		{"check --help", []string{"check", "--help"}, exitOK, []string{"pact-action check --local DIR", "--format text|json|sarif"}},
		{"check -h after flags", []string{"check", "--local", "x", "-h"}, exitOK, []string{"Local preview"}},
		{"--version", []string{"--version"}, exitOK, []string{"pact-action "}},
		{"--version takes nothing else", []string{"--version", "x"}, exitUsage, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			getenv := func(string) string { return "" }
			code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, getenv)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout.String(), stderr.String())
			}
			s := strings.ReplaceAll(stdout.String(), `\`, "")
			for _, w := range tt.wantOut {
				if !strings.Contains(s, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout.String())
				}
			}
			if tt.wantCode == exitUsage && !strings.Contains(stderr.String(), "pact-action: ") {
				t.Errorf("a usage error must say what happened on stderr, got %q", stderr.String())
			}
		})
	}
}
