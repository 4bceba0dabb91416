package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toCRLF is a file as a Windows checkout with core.autocrlf=true writes
// it: every LF not already after a CR becomes CRLF.
func toCRLF(b []byte) []byte {
	out := make([]byte, 0, len(b)+bytes.Count(b, []byte("\n")))
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}

// checkoutCRLF converts every file of the project, as such a checkout
// would.
func checkoutCRLF(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(path, toCRLF(b), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// lineEndings says which line endings text uses: "LF", "CRLF", "none" or
// "mixed".
func lineEndings(text string) string {
	lf, crlf := 0, 0
	for i := range len(text) {
		if text[i] == '\n' {
			if i > 0 && text[i-1] == '\r' {
				crlf++
			} else {
				lf++
			}
		}
	}
	switch {
	case lf > 0 && crlf > 0:
		return "mixed"
	case crlf > 0:
		return "CRLF"
	case lf > 0:
		return "LF"
	}
	return "none"
}

// TestCRLFCheckout: a pact checked out with CRLF line endings everywhere
// (core.autocrlf=true on Windows) validates exactly as the LF one, in every
// format, for a valid pact and a broken one; and a verb that writes to it
// never leaves a file that mixes CRLF and LF.
func TestCRLFCheckout(t *testing.T) {
	t.Parallel()
	for _, src := range []string{template(t, "pact"), filepath.Join("testdata", "broken")} {
		for _, format := range []string{"text", "json", "sarif"} {
			lf, crlf := newProject(t), newProject(t)
			copyTree(t, src, lf.dir)
			copyTree(t, src, crlf.dir)
			checkoutCRLF(t, crlf.dir)
			want := lf.run(unset, "validate", "--format", format)
			got := crlf.run(unset, "validate", "--format", format)
			if got.code != want.code || got.stdout != want.stdout || got.stderr != want.stderr {
				t.Errorf("%s, %s: the CRLF checkout validates otherwise\n%s\nthe LF one:\n%s", filepath.Base(src), format, got, want)
			}
		}
	}

	p := newProject(t)
	copyTree(t, template(t, "pact"), p.dir)
	checkoutCRLF(t, p.dir)
	p.mustValidate()
	p.now = "2026-06-09T11:00:00Z"
	p.ok("bob", "join", "bob", "--roles", "worker")
	p.ok("orch", "assign", "T9", "--feature", "F9", "--branch", "b9", "--owner", "alice", "--reviewer", "bob")
	p.ok("alice", "checkpoint", "T3", "--evidence", "done")
	p.ok("orch", templateInit...)
	// The log goes on in CRLF (a new line in LF would make it mixed);
	// every other file is whole, in one line ending or the other.
	if got := lineEndings(p.read(".pact/log.jsonl")); got != "CRLF" {
		t.Errorf("the log's line endings are %s after appending to a CRLF log", got)
	}
	for _, f := range []string{".pact/STATE.yml", ".pact/PROJECT.md", ".pact/tasks/T9.md", ".pact/tasks/T1.md", "AGENTS.md", "CLAUDE.md", ".gitattributes"} {
		if got := lineEndings(p.read(f)); got == "mixed" {
			t.Errorf("%s mixes CRLF and LF:\n%q", f, p.read(f))
		}
	}
	for _, f := range []string{"AGENTS.md", "CLAUDE.md", ".pact/PROJECT.md"} {
		if got := lineEndings(p.read(f)); got != "CRLF" {
			t.Errorf("%s, a CRLF file, is %s after init rewrote its block", f, got)
		}
	}
}

// TestPactDirWithBackslashes: --pact-dir and PACT_DIR as a Windows user
// types them, on every OS, name the same directory as with slashes, and
// every output format names its files with "/".
func TestPactDirWithBackslashes(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	r := p.run("lead", "init", "--pact-dir", `docs\pact`, "--project", "demo", "--seat", "lead:orchestrator,reviewer:AGENTS.md", "--seat", "dev:worker:AGENTS.md")
	if r.code != 0 || !strings.Contains(r.stdout, "docs/pact/log.jsonl") {
		t.Fatalf(`init --pact-dir docs\pact:`+"\n%s", r)
	}
	if _, err := os.Stat(p.path("docs/pact/log.jsonl")); err != nil {
		t.Fatalf(`init --pact-dir docs\pact wrote no docs/pact/log.jsonl: %v`, err)
	}
	if !strings.Contains(p.read(".gitattributes"), "\ndocs/pact/** text eol=lf\n") {
		t.Errorf(".gitattributes does not keep docs/pact:\n%s", p.read(".gitattributes"))
	}
	if entry := p.read("AGENTS.md"); !strings.Contains(entry, "export PACT_DIR=docs/pact") {
		t.Errorf("the entry file does not send the seats to docs/pact:\n%s", entry)
	}
	withEnv := func(dir, agent string, args ...string) result {
		return runIn(t, p.dir, append(p.env(agent), "PACT_DIR="+dir), args...)
	}
	if r := withEnv(`docs\pact`, "lead", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "dev", "--reviewer", "lead"); r.code != 0 ||
		!strings.Contains(r.stdout, "docs/pact/log.jsonl") {
		t.Fatalf(`assign under PACT_DIR=docs\pact:`+"\n%s", r)
	}
	// A task file of the wrong shape, so that findings name files.
	p.write("docs/pact/tasks/T1.md", "---\nid: T1\nfeature: OTHER\nowner: dev\nreviewer: lead\n---\n")
	for _, format := range []string{"text", "json", "sarif"} {
		for _, args := range [][]string{{"validate", "--pact-dir", `docs\pact`, "--format", format, "--task-files"}, {"validate", "--pact-dir", `.\docs\pact\`, "--format", format, "--task-files"}} {
			r := p.run(unset, args...)
			if r.code != 0 || !strings.Contains(r.stdout, "docs/pact/tasks/T1.md") || strings.Contains(r.stdout, `docs\`) || strings.Contains(r.stdout, `pact\`) {
				t.Errorf("%q: findings must name docs/pact/tasks/T1.md with slashes\n%s", args, r)
			}
		}
	}
	if r := p.run(unset, "validate", "--pact-dir", `..\elsewhere`); r.code != 2 || !strings.Contains(r.stderr, "must lie inside the repository") {
		t.Errorf("a pact directory above the repository:\n%s", r)
	}
}

// TestInitWritesGitAttributes: init puts the line that keeps git from
// converting the pact's line endings in .gitattributes: once, after what is
// there, in its line endings, and never when a rule already keeps them; a
// .gitattributes that is a link is refused before anything is written.
func TestInitWritesGitAttributes(t *testing.T) {
	t.Parallel()
	const line = "# The pact's files keep LF line endings on every checkout (pactify init).\n.pact/** text eol=lf\n"
	const merge = "# git merges the pact's log and STATE.yml with pactify (pactify install; docs/pactify.md).\n.pact/log.jsonl merge=pact\n.pact/STATE.yml merge=pact\n"
	for _, c := range []struct {
		name, before, after string
	}{
		{"no .gitattributes", "\x00none", line + merge},
		{"one of its own", "*.png binary\n", "*.png binary\n" + line + merge},
		{"without a final newline", "*.png binary", "*.png binary\n" + line + merge},
		{"in CRLF", "*.png binary\r\n", "*.png binary\r\n" + strings.ReplaceAll(line+merge, "\n", "\r\n")},
		{"a rule that keeps them already", "* -text\n", "* -text\n" + merge},
		{"a rule that converts them", ".pact/** text\n", ".pact/** text\n" + line + merge},
		{"both there already", "* -text\n.pact/* merge=pact\n", "* -text\n.pact/* merge=pact\n"},
		{"another driver for the log", line + merge + ".pact/log.jsonl merge=union\n", line + merge + ".pact/log.jsonl merge=union\n" + merge},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newProject(t)
			if c.before != "\x00none" {
				p.write(".gitattributes", c.before)
			}
			p.ok("orch", templateInit...)
			if got := p.read(".gitattributes"); got != c.after {
				t.Fatalf(".gitattributes = %q, want %q", got, c.after)
			}
			p.ok("orch", templateInit...) // init again: nothing more
			if got := p.read(".gitattributes"); got != c.after {
				t.Fatalf("init again: .gitattributes = %q, want %q", got, c.after)
			}
		})
	}
	t.Run("a link", func(t *testing.T) {
		t.Parallel()
		p := newProject(t)
		outside := filepath.Join(t.TempDir(), "attributes")
		if err := os.WriteFile(outside, []byte("*.png binary\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		symlinkOrSkip(t, outside, p.path(".gitattributes"))
		before := snapshot(t, p.dir)
		r := p.run("orch", templateInit...)
		if r.code != 2 || !plainShape.MatchString(r.stderr) || !strings.Contains(r.stderr, ".gitattributes") || !strings.Contains(r.stderr, "symbolic link") {
			t.Fatalf("init with a linked .gitattributes:\n%s", r)
		}
		sameTree(t, before, snapshot(t, p.dir))
		if b, _ := os.ReadFile(outside); string(b) != "*.png binary\n" {
			t.Errorf("the file outside changed: %q", b)
		}
	})
}
