package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// TestVerbHelp: `pactify <verb> --help` and `-h` print that verb's usage and
// exit 0, wherever the flag stands, without a pact and without a seat.
func TestVerbHelp(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	for _, v := range verbSpecs {
		for _, args := range [][]string{{v.name, "--help"}, {v.name, "-h"}, {v.name, "T1", "-h"}} {
			r := p.run(unset, args...)
			if r.code != 0 || r.stdout != v.help() || r.stderr != "" {
				t.Errorf("want %s's usage and exit 0\n%s", v.name, r)
			}
			if !strings.HasPrefix(r.stdout, "usage: pactify "+v.name) {
				t.Errorf("%s --help does not start with its usage line:\n%s", v.name, r.stdout)
			}
		}
		if r := p.run(unset, "help", v.name); r.code != 0 || r.stdout != v.help() {
			t.Errorf("pactify help %s:\n%s", v.name, r)
		}
	}
	// -h as a flag's value is that value, not a request for help.
	if r := p.run("rev", "changes", "T1", "--reason", "-h"); r.code == 0 || strings.HasPrefix(r.stdout, "usage:") {
		t.Errorf("--reason -h must be a reason:\n%s", r)
	}
	if r := p.run(unset, "help", "nope"); r.code != 2 || !strings.Contains(r.stderr, `unknown verb "nope"`) {
		t.Errorf("help for an unknown verb:\n%s", r)
	}
	if r := p.run(unset, "help"); r.code != 0 || r.stdout != helpText {
		t.Errorf("help:\n%s", r)
	}
}

// TestUsageErrorsQuoteTheTable: a verb called wrongly prints the synopsis
// its --help shows.
func TestUsageErrorsQuoteTheTable(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	for _, verb := range []string{"join", "assign", "checkpoint", "accept", "changes", "merge", "status", "log", "validate", "completion"} {
		spec, _ := lookupVerb(verb)
		args := []string{verb, "a", "b", "c"}
		r := p.run("rev", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "usage: "+spec.synopsis()) {
			t.Errorf("want the usage line %q\n%s", spec.synopsis(), r)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	r := p.run(unset, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "pactify "+testbin.Version+" (go") || r.stderr != "" {
		t.Errorf("--version:\n%s", r)
	}
	if r := p.run(unset, "--version", "validate"); r.code != 2 {
		t.Errorf("--version with a verb:\n%s", r)
	}
}

// TestPactDir: --pact-dir and PACT_DIR choose the pact directory (the flag
// wins), for writing verbs as for validate, and init tells the seats.
func TestPactDir(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	withEnv := func(pactDir, agent string, args ...string) result {
		env := p.env(agent)
		if pactDir != "" {
			env = append(env, "PACT_DIR="+pactDir)
		}
		return runIn(t, p.dir, env, args...)
	}
	r := withEnv("", "lead", "init", "--pact-dir", "docs/pact", "--project", "demo", "--seat", "lead:orchestrator,reviewer:AGENTS.md", "--seat", "dev:worker:AGENTS.md")
	if r.code != 0 {
		t.Fatalf("init --pact-dir:\n%s", r)
	}
	if _, err := os.Stat(p.path("docs/pact/log.jsonl")); err != nil {
		t.Fatalf("init --pact-dir wrote no docs/pact/log.jsonl: %v", err)
	}
	if _, err := os.Stat(p.path(".pact")); !os.IsNotExist(err) {
		t.Errorf("init --pact-dir also made .pact: %v", err)
	}
	if entry := p.read("AGENTS.md"); !strings.Contains(entry, "export PACT_DIR=docs/pact") || !strings.Contains(entry, "`docs/pact/STATE.yml`") {
		t.Errorf("the entry file does not send the seats to docs/pact:\n%s", entry)
	}
	for _, c := range []struct {
		name string
		env  string
		args []string
		code int
	}{
		{"default .pact is empty here", "", []string{"validate"}, 2},
		{"PACT_DIR", "docs/pact", []string{"validate"}, 0},
		{"the flag", "", []string{"validate", "--pact-dir", "docs/pact"}, 0},
		{"the flag wins over PACT_DIR", "nowhere", []string{"validate", "--pact-dir=docs/pact"}, 0},
		{"the flag wins, even when wrong", "docs/pact", []string{"validate", "--pact-dir", "nowhere"}, 2},
		{"an absolute path", "", []string{"status", "--pact-dir", p.path("docs/pact")}, 0},
		{"the working directory itself", "", []string{"validate", "--pact-dir", "."}, 2},
		{"an empty flag", "docs/pact", []string{"validate", "--pact-dir="}, 2},
	} {
		r := withEnv(c.env, unset, c.args...)
		if r.code != c.code {
			t.Errorf("%s: want exit %d\n%s", c.name, c.code, r)
		}
	}
	if r := withEnv("docs/pact", "lead", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "dev", "--reviewer", "lead"); r.code != 0 || !strings.Contains(r.stdout, "docs/pact/log.jsonl") {
		t.Fatalf("assign under PACT_DIR:\n%s", r)
	}
	if _, err := os.Stat(p.path("docs/pact/tasks/T1.md")); err != nil {
		t.Errorf("assign under PACT_DIR wrote no task file there: %v", err)
	}
	if r := withEnv("docs/pact", unset, "validate", "--format", "json"); r.code != 0 || strings.Contains(r.stdout, `".pact/`) {
		t.Errorf("findings must name docs/pact paths:\n%s", r)
	}
}

// TestCompletion: each shell's script is produced and is valid for that
// shell; bash's is exercised for real, calling the built pactify back for
// the words as it does on a user's machine.
func TestCompletion(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	scripts := map[string]string{}
	for _, shell := range cmdline.Shells {
		r := p.run(unset, "completion", shell)
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "pactify") {
			t.Fatalf("completion %s:\n%s", shell, r)
		}
		path := filepath.Join(t.TempDir(), "pactify."+shell)
		if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		scripts[shell] = path
	}
	if r := p.run(unset, "completion", "tcsh"); r.code != 2 {
		t.Errorf("completion for an unknown shell:\n%s", r)
	}
	if r := p.run(unset, "completion"); r.code != 2 || !strings.Contains(r.stderr, "usage: pactify completion bash|zsh|fish") {
		t.Errorf("completion without a shell:\n%s", r)
	}

	// bash: complete words as bash would, and compare what is offered,
	// where bash is a user's shell.
	if runtime.GOOS == "windows" {
		t.Skip("the completion scripts are for Unix shells; bash runs them on Linux and macOS")
	}
	mkdir(t, p.path("docs/pact"))
	for _, c := range []struct {
		words string // the command line; the last word is being completed
		want  string
	}{
		{`pactify val`, "validate"},
		{`pactify ch`, "checkpoint changes"},
		{`pactify --v`, "--version"},
		{`pactify validate --format ""`, "text json sarif"},
		{`pactify validate --`, "--format --help --pact-dir --task-files"},
		{`pactify log --r`, "--replay"},
		{`pactify completion ""`, "bash zsh fish powershell"}, // was "bash zsh fish --help"
		{`pactify help me`, "merge merge-driver"},
		{`pactify assign T1 --owner ""`, ""},
		{`pactify --pact-dir docs/pact val`, "validate"},
		{`pactify status --pact-dir do`, "docs"},
		{`pactify accept T1 --commit abc --pact-dir docs/`, "docs/pact"},
	} {
		script := bashCompletionShim + `
source "$1"; COMP_WORDS=(` + c.words + `); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); __start_pactify; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command("bash", "-c", script, "bash", scripts["bash"])
		cmd.Dir = p.dir
		cmd.Env = append(p.env(unset), "PATH="+filepath.Dir(binPath)+string(os.PathListSeparator)+os.Getenv("PATH"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("bash completion of %s: %v\n%s%s", c.words, err, out, stderr.String())
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if word, _, _ := strings.Cut(line, " "); word != "" {
				got = append(got, word) // bash lists descriptions after the word
			}
		}
		// bash shows the words sorted.
		sort.Strings(got)
		want := strings.Fields(c.want)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("bash completes %q to %q, want %q", c.words, got, c.want)
		}
	}
	// zsh and fish check their scripts' syntax where they are installed.
	for shell, check := range map[string][]string{"zsh": {"-n"}, "fish": {"--no-execute"}} {
		bin, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s is not installed: its script's syntax is not checked", shell)
			continue
		}
		if out, err := exec.Command(bin, append(check, scripts[shell])...).CombinedOutput(); err != nil {
			t.Errorf("%s rejects its completion script: %v\n%s", shell, err, out)
		}
	}
}

// bashCompletionShim stands in for the two functions of the bash-completion
// package that cobra's bash script calls, which a non-interactive bash has
// not loaded, and for compopt, which works only while bash completes: enough
// of them for the words these tests complete.
const bashCompletionShim = `_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
_filedir() { if [[ $1 == -d ]]; then COMPREPLY=($(compgen -d -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi; }
compopt() { :; }`
