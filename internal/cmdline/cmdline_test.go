package cmdline

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// errHelp stands for "printed the verb's help" in these tests.
var errHelp = errors.New("help printed")

// parse runs `prog verb args...` through Execute, the way both binaries
// do, and returns what the verb's RunE read.
func parse(verb string, args []string, known Flags) (Args, error) {
	return parseAs(verb, verb, args, known)
}

// parseAs is parse of a program whose verb is named verb (and "other"),
// called as `prog typed args...`.
func parseAs(verb, typed string, args []string, known Flags) (Args, error) {
	var got Args
	root := &cobra.Command{Use: "prog", Args: func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return UnknownVerb(c, args[0])
		}
		return nil
	}, RunE: func(*cobra.Command, []string) error { return Usagef("no verb given") }}
	cmd := &cobra.Command{Use: verb, RunE: func(c *cobra.Command, pos []string) error {
		var err error
		got, err = Parsed(c, pos)
		return err
	}}
	Define(cmd, known, nil)
	root.AddCommand(cmd, &cobra.Command{Use: "other", Run: func(*cobra.Command, []string) {}})
	var out bytes.Buffer
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { out.WriteString("help of " + c.Name()) })
	err := Execute(context.Background(), root, append([]string{typed}, args...), &out, &out)
	if err == nil && out.String() == "help of "+verb {
		err = errHelp
	}
	return got, err
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	known := Flags{"feature": String, "seat": Multi, "replay": Bool, "owner": String}
	for _, c := range []struct {
		name   string
		args   []string
		pos    []string
		values map[string][]string
		bools  map[string]bool
		err    string
	}{
		{name: "nothing", args: nil, pos: nil, values: map[string][]string{}, bools: map[string]bool{}},
		{name: "interleaved", args: []string{"T1", "--feature", "F", "T2", "--owner", "a", "T3"},
			pos: []string{"T1", "T2", "T3"}, values: map[string][]string{"feature": {"F"}, "owner": {"a"}}, bools: map[string]bool{}},
		{name: "flags first", args: []string{"--feature", "F", "T1"},
			pos: []string{"T1"}, values: map[string][]string{"feature": {"F"}}, bools: map[string]bool{}},
		{name: "--flag=value", args: []string{"--feature=F=G", "T1"},
			pos: []string{"T1"}, values: map[string][]string{"feature": {"F=G"}}, bools: map[string]bool{}},
		{name: "empty --flag=", args: []string{"--feature="},
			values: map[string][]string{"feature": {""}}, bools: map[string]bool{}},
		{name: "single dash", args: []string{"-feature", "F"},
			values: map[string][]string{"feature": {"F"}}, bools: map[string]bool{}},
		{name: "value that looks like a flag", args: []string{"--feature", "--owner"},
			values: map[string][]string{"feature": {"--owner"}}, bools: map[string]bool{}},
		{name: "repeated --seat keeps order", args: []string{"--seat", "a:worker:A.md", "--seat=b:reviewer:B.md", "--seat", "c:worker:C.md"},
			values: map[string][]string{"seat": {"a:worker:A.md", "b:reviewer:B.md", "c:worker:C.md"}}, bools: map[string]bool{}},
		{name: "bool", args: []string{"--replay"}, values: map[string][]string{}, bools: map[string]bool{"replay": true}},
		{name: "lone dash is positional", args: []string{"-"}, pos: []string{"-"}, values: map[string][]string{}, bools: map[string]bool{}},
		{name: "double dash ends flags", args: []string{"--feature", "F", "--", "--owner", "-x"},
			pos: []string{"--owner", "-x"}, values: map[string][]string{"feature": {"F"}}, bools: map[string]bool{}},
		{name: "unknown flag", args: []string{"T1", "--force"}, err: "verb does not take the flag --force"},
		{name: "unknown flag with value", args: []string{"--force=yes"}, err: "verb does not take the flag --force"},
		{name: "empty flag name", args: []string{"--=x"}, err: "verb does not take the flag --"},
		{name: "missing value", args: []string{"T1", "--feature"}, err: "--feature needs a value"},
		{name: "string flag twice", args: []string{"--feature", "F", "--feature=G"}, err: "--feature is given twice"},
		{name: "bool with value", args: []string{"--replay=true"}, err: "--replay takes no value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, err := parse("verb", c.args, known)
			if c.err != "" {
				var u *UsageError
				if !errors.As(err, &u) || err.Error() != c.err {
					t.Fatalf("err = %v, want usage error %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Positional, c.pos) || !reflect.DeepEqual(p.Values, c.values) || !reflect.DeepEqual(p.Bools, c.bools) {
				t.Fatalf("got %q %q %v, want %q %q %v", p.Positional, p.Values, p.Bools, c.pos, c.values, c.bools)
			}
		})
	}
}

func TestArgsGet(t *testing.T) {
	t.Parallel()
	p, err := parse("init", []string{"--seat", "a", "--seat", "b"}, Flags{"seat": Multi, "project": String})
	if err != nil {
		t.Fatal(err)
	}
	if p.Get("seat") != "b" || !p.Has("seat") || p.Has("project") || p.Get("project") != "" {
		t.Fatalf("get/has: %+v", p)
	}
}

// TestHelpFlag: -h and --help ask for the verb's usage wherever a flag may
// stand, but never as a flag's value or after --.
func TestHelpFlag(t *testing.T) {
	t.Parallel()
	known := Flags{"reason": String, "replay": Bool}
	for _, c := range []struct {
		args []string
		help bool
	}{
		{[]string{"-h"}, true},
		{[]string{"--help"}, true},
		{[]string{"T1", "--reason", "x", "-h"}, true},
		{[]string{"T1", "--reason", "-h"}, false},
		{[]string{"T1", "--reason=--help"}, false},
		{[]string{"--", "-h"}, false},
		{[]string{"--help=yes"}, false},
	} {
		_, err := parse("changes", c.args, known)
		if got := errors.Is(err, errHelp); got != c.help {
			t.Errorf("Parse(%q): help = %v (err %v), want %v", c.args, got, err, c.help)
		}
	}
}

// TestErrorsNameWhatWasTyped: a bad flag is reported as it was typed, with
// the flags or verbs it is closest to, in one line.
func TestErrorsNameWhatWasTyped(t *testing.T) {
	t.Parallel()
	known := Flags{"format": String, "replay": Bool}
	for _, c := range []struct {
		verb string
		args []string
		want string
	}{
		{"verb", []string{"-f", "json"}, "verb does not take the flag -f"},
		{"verb", []string{"-fjson"}, "verb does not take the flag -f (in -fjson)"},
		{"verb", []string{"--fromat", "json"}, "verb does not take the flag --fromat; did you mean --format?"},
		{"verb", []string{"-fromat", "json"}, "verb does not take the flag -f (in -fromat)"},
		{"verb", []string{"---format"}, "verb does not take the flag ---format"},
		{"verb", []string{"--help=yes"}, "--help takes no value"},
		{"verb", []string{"--replay=false"}, "--replay takes no value"},
		{"verb", []string{"--format=a", "--format", "b"}, "--format is given twice"},
		{"vreb", nil, `unknown verb "vreb"; did you mean verb?`},
		{"o", nil, `unknown verb "o"; did you mean other?`},
		{"zzz", nil, `unknown verb "zzz"`},
	} {
		_, err := parseAs("verb", c.verb, c.args, known)
		var u *UsageError
		if !errors.As(err, &u) || err.Error() != c.want || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %q: err = %v, want the usage error %q", c.verb, c.args, err, c.want)
		}
	}
}

// TestExclusive: flags of one group are refused together, each alone is
// fine.
func TestExclusive(t *testing.T) {
	t.Parallel()
	run := func(args ...string) error {
		root := &cobra.Command{Use: "prog"}
		cmd := &cobra.Command{Use: "check", RunE: func(*cobra.Command, []string) error { return nil }}
		Define(cmd, Flags{"base": String, "base-log": String, "branch": String}, nil)
		Exclusive(cmd, "base", "base-log")
		root.AddCommand(cmd)
		var out bytes.Buffer
		return Execute(context.Background(), root, append([]string{"check"}, args...), &out, &out)
	}
	for _, ok := range [][]string{{"--base", "main"}, {"--base-log", "f"}, {"--branch", "b", "--base", "x"}, nil} {
		if err := run(ok...); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	err := run("--base", "main", "--base-log", "f")
	var u *UsageError
	if !errors.As(err, &u) || err.Error() != "--base and --base-log cannot be given together; give one of them" {
		t.Errorf("--base with --base-log: %v", err)
	}
}
