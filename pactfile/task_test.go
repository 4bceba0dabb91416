package pactfile

import (
	"github.com/pact-action/pact-action/internal/testkit/yamlcases"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// formatTaskWithYAML is how pactify wrote the front matter before this
// package: yaml.Marshal of a one-key map per key. formatTask must write
// exactly the same bytes, so that files written before still match.
func formatTaskWithYAML(t testing.TB, fm Task) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	for _, kv := range [][2]string{{"id", fm.ID}, {"feature", fm.Feature}, {"owner", fm.Owner}, {"reviewer", fm.Reviewer}} {
		line, err := yaml.Marshal(map[string]string{kv[0]: kv[1]})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
	}
	b.WriteString("---\n")
	return []byte(b.String())
}

func TestFormatTask(t *testing.T) {
	t.Parallel()
	got := string(formatTask(Task{ID: "T1", Feature: "yes", Owner: "opencode", Reviewer: "claude-opus"}))
	// A feature named like a YAML boolean stays a string.
	if want := "---\nid: T1\nfeature: \"yes\"\nowner: opencode\nreviewer: claude-opus\n---\n"; got != want {
		t.Errorf("FormatTask = %q, want %q", got, want)
	}
	for i, s := range yamlcases.Tricky {
		fm := Task{ID: s, Feature: yamlcases.Tricky[(i+1)%len(yamlcases.Tricky)], Owner: yamlcases.Tricky[(i+2)%len(yamlcases.Tricky)], Reviewer: s}
		if got, want := formatTask(fm), formatTaskWithYAML(t, fm); string(got) != string(want) {
			t.Errorf("FormatTask(%+v) =\n%q\nyaml.Marshal wrote\n%q", fm, got, want)
		}
	}
}

func TestParseTask(t *testing.T) {
	t.Parallel()
	full := Task{ID: "T1", Feature: "F", Owner: "opencode", Reviewer: "claude-opus"}
	cases := []struct {
		name string
		doc  string
		want Task
		err  string
	}{
		{"spec shape", "---\nid: T1\nfeature: F\nowner: opencode\nreviewer: claude-opus\n---\n## Spec\n", full, ""},
		{"CRLF", "---\r\nid: T1\r\nfeature: F\r\nowner: opencode\r\nreviewer: claude-opus\r\n---\r\nbody\r\n", full, ""},
		{"BOM", "\xEF\xBB\xBF---\nid: T1\nfeature: F\nowner: opencode\nreviewer: claude-opus\n---\n", full, ""},
		{"quoted, reordered, extra keys", "---\nreviewer: 'claude-opus'\nowner: \"opencode\"\nstatus: whatever\nfeature: F\nid: T1\n---\n", full, ""},
		{"no trailing newline after the closing line", "---\nid: T1\nfeature: F\nowner: opencode\nreviewer: claude-opus\n---", full, ""},
		{"numbers read as their text", "---\nid: 1\nfeature: 2.0\n---\n", Task{ID: "1", Feature: "2.0"}, ""},
		{"empty frontmatter", "---\n---\nbody\n", Task{}, ""},
		{"no opening line", "id: T1\n---\n", Task{}, "does not start with a --- frontmatter line"},
		{"text before the opening line", "\n---\nid: T1\n---\n", Task{}, "does not start with a --- frontmatter line"},
		{"no closing line", "---\nid: T1\n", Task{}, "no closing --- line"},
		{"invalid YAML", "---\nid: [T1\n---\n", Task{}, "not valid YAML"},
		{"a list where a string belongs", "---\nid: [T1]\n---\n", Task{}, "not valid YAML"},
		{"empty file", "", Task{}, "does not start"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTask([]byte(tc.doc))
			if tc.err == "" {
				if err != nil || got != tc.want {
					t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want one saying %q", err, tc.err)
			}
		})
	}
}

func TestTaskFile(t *testing.T) {
	t.Parallel()
	fm := Task{ID: "T1", Feature: "F", Owner: "a", Reviewer: "b"}
	cases := []struct{ name, old, want string }{
		{"new file", "\x00nil", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\n" + newTaskBody},
		{"keeps the body, in LF", "---\r\nid: old\r\n---\r\nMy notes.\r\n", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\nMy notes.\n"},
		{"no front matter: all of it is the body, in LF", "\ufeffNo frontmatter\r\nat all.\r\n", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\nNo frontmatter\nat all.\n"},
		{"empty file", "", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\n"},
		// Front matter as ParseTask reads it is replaced, not kept as body.
		{"byte order mark", "\ufeff---\nid: old\n---\nbody\n", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\nbody\n"},
		{"spaces after the closing line", "---\nid: old\n--- \t\nbody\n", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\nbody\n"},
		{"empty front matter", "---\n---\nbody\n", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\nbody\n"},
		{"closing line ends the file", "---\nid: old\n---", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\n"},
		{"no closing line: all of it is the body", "---\nid: old\n", "---\nid: T1\nfeature: F\nowner: a\nreviewer: b\n---\n---\nid: old\n"},
	}
	for _, tc := range cases {
		old := []byte(tc.old)
		if tc.old == "\x00nil" {
			old = nil
		}
		if got := string(TaskFile(fm, old)); got != tc.want {
			t.Errorf("%s: TaskFile = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTaskMatches(t *testing.T) {
	t.Parallel()
	fm := Task{ID: "T1", Feature: "yes", Owner: "opencode", Reviewer: "claude-opus"}
	file := TaskFile(fm, nil)
	cases := []struct {
		name string
		b    []byte
		fm   Task
		want bool
	}{
		{"as pactify writes it", file, fm, true},
		{"front matter alone", formatTask(fm), fm, true},
		{"another task", file, Task{ID: "T2", Feature: "yes", Owner: "opencode", Reviewer: "claude-opus"}, false},
		{"same meaning, other bytes", []byte("---\nid: T1\nfeature: 'yes'\nowner: opencode\nreviewer: claude-opus\n---\n"), fm, false},
		{"CRLF", []byte(strings.ReplaceAll(string(file), "\n", "\r\n")), fm, false},
		{"cut short", file[:20], fm, false},
		{"empty", nil, fm, false},
		// A value YAML would not read back as itself is never matched on
		// bytes: parsing decides.
		{"value with a line break", formatTask(Task{ID: "T1", Feature: "a\nb"}), Task{ID: "T1", Feature: "a\nb"}, false},
		{"value with a CR", formatTask(Task{ID: "T1", Feature: "a\rb"}), Task{ID: "T1", Feature: "a\rb"}, false},
	}
	for _, tc := range cases {
		if got := TaskMatches(tc.b, tc.fm); got != tc.want {
			t.Errorf("%s: TaskMatches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzTaskMatches: whenever TaskMatches says a file mirrors a task, parsing
// the file says so too; and formatTask writes what yaml.Marshal wrote.
//
//	go test ./pactfile/ -run '^$' -fuzz FuzzTaskMatches -fuzztime 60s
func FuzzTaskMatches(f *testing.F) {
	for i, s := range yamlcases.Tricky {
		f.Add(s, yamlcases.Tricky[(i+1)%len(yamlcases.Tricky)], "opencode", yamlcases.Tricky[(i+5)%len(yamlcases.Tricky)], newTaskBody)
	}
	f.Add("T1", "F", "a", "b", "---\nid: T2\n---\n")
	f.Fuzz(func(t *testing.T, id, feature, owner, reviewer, body string) {
		fm := Task{ID: id, Feature: feature, Owner: owner, Reviewer: reviewer}
		if got, want := formatTask(fm), formatTaskWithYAML(t, fm); string(got) != string(want) {
			t.Fatalf("FormatTask(%+v) =\n%q\nyaml.Marshal wrote\n%q", fm, got, want)
		}
		b := append(formatTask(fm), body...)
		if !TaskMatches(b, fm) {
			return
		}
		got, err := ParseTask(b)
		if err != nil || got != fm {
			t.Fatalf("TaskMatches(%q) but ParseTask = %+v, %v; want %+v", b, got, err, fm)
		}
	})
}

// FuzzParseTask: any task file is read without panicking, and what it reads
// survives being written back as front matter.
//
//	go test ./pactfile/ -run '^$' -fuzz FuzzParseTask -fuzztime 20s
func FuzzParseTask(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "pacts", "*", "tasks", "*.md"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\r\nid: 'a: b'\r\nowner: |\n  x\n---\n"))
	f.Add([]byte("\xEF\xBB\xBF---\nid: &a T1\nfeature: *a\n---"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		fm, err := ParseTask(doc)
		if err != nil {
			return
		}
		out, err := yaml.Marshal(fm)
		if err != nil {
			t.Fatalf("marshal %+v: %v", fm, err)
		}
		again, err := ParseTask([]byte("---\n" + string(out) + "---\nbody\n"))
		if err != nil || again != fm {
			t.Fatalf("round trip: %+v -> %q -> %+v, %v", fm, out, again, err)
		}
	})
}
