package cmdline

import (
	"errors"
	"reflect"
	"testing"
)

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
			p, err := Parse("verb", c.args, known)
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
	p, err := Parse("init", []string{"--seat", "a", "--seat", "b"}, Flags{"seat": Multi, "project": String})
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
		_, err := Parse("changes", c.args, known)
		if got := errors.Is(err, ErrHelp); got != c.help {
			t.Errorf("Parse(%q): help = %v (err %v), want %v", c.args, got, err, c.help)
		}
	}
	// A verb that takes --help as its own flag keeps it.
	p, err := Parse("x", []string{"--help"}, Flags{"help": Bool})
	if err != nil || !p.Bools["help"] {
		t.Errorf("a verb's own --help flag: %+v %v", p, err)
	}
}
