package report

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func sampleFindings() []checks.Finding {
	return []checks.Finding{
		{Code: projection.CodeSelfAccept, Severity: checks.SeverityError, Path: ".pact/log.jsonl", Line: 7, EventID: "e7", TaskID: "T1", Feature: "F",
			Message: "accept of T1 by its own owner opencode", Hint: checks.Describe(projection.CodeSelfAccept).Hint},
		{Code: checks.CodeDriftMissing, Severity: checks.SeverityWarning, Path: ".pact/STATE.yml", Message: "there is no STATE.yml", Hint: checks.Describe(checks.CodeDriftMissing).Hint},
		{Code: checks.CodePRUnaccepted, Severity: checks.SeverityPending, Path: ".pact/log.jsonl", Line: 2, TaskID: "T2", Feature: "F",
			Message: "waiting for T2 (feature F): awaiting review by gpt", Hint: checks.Describe(checks.CodePRUnaccepted).Hint},
		{Code: "future.code", Severity: checks.SeverityWarning, Path: "x", Line: 1, Message: "multi\nline\r\nmessage", Hint: "h"},
		{Code: "future.code", Severity: checks.SeverityWarning, Path: "x", Line: 2, Message: "again", Hint: "h"},
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestJSONReportShape(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		findings []checks.Finding
		valid    bool
		counts   [3]int // errors, warnings, pending
	}{
		{"no findings", nil, true, [3]int{}},
		{"mixed", sampleFindings(), false, [3]int{1, 3, 1}},
		{"warnings and pending only are valid", sampleFindings()[1:], true, [3]int{0, 3, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteJSON(&buf, tc.findings); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, buf.Bytes())
			}
			if got := keys(doc); !reflect.DeepEqual(got, []string{"errors", "findings", "pending", "valid", "warnings"}) {
				t.Errorf("top-level keys %v", got)
			}
			if doc["valid"] != tc.valid {
				t.Errorf("valid = %v, want %v", doc["valid"], tc.valid)
			}
			if doc["errors"] != float64(tc.counts[0]) || doc["warnings"] != float64(tc.counts[1]) || doc["pending"] != float64(tc.counts[2]) {
				t.Errorf("counts %v %v %v, want %v", doc["errors"], doc["warnings"], doc["pending"], tc.counts)
			}
			list, ok := doc["findings"].([]any)
			if !ok {
				t.Fatalf("findings is %T, want an array (never null)", doc["findings"])
			}
			if len(list) != len(tc.findings) {
				t.Fatalf("%d findings, want %d", len(list), len(tc.findings))
			}
			for i, item := range list {
				f := item.(map[string]any)
				want := []string{"code", "event_id", "feature", "hint", "line", "message", "path", "severity", "task_id"}
				if tc.findings[i].Line == 0 {
					want = []string{"code", "event_id", "feature", "hint", "message", "path", "severity", "task_id"}
				}
				if got := keys(f); !reflect.DeepEqual(got, want) {
					t.Errorf("finding %d keys %v, want %v", i, got, want)
				}
				src := tc.findings[i]
				if f["code"] != string(src.Code) || f["severity"] != string(src.Severity) || f["path"] != src.Path || f["event_id"] != src.EventID ||
					f["task_id"] != src.TaskID || f["feature"] != src.Feature || f["message"] != src.Message || f["hint"] != src.Hint {
					t.Errorf("finding %d = %v, from %+v", i, f, src)
				}
				if src.Line > 0 && f["line"] != float64(src.Line) {
					t.Errorf("finding %d line %v", i, f["line"])
				}
			}
		})
	}
}

// sarif is the part of SARIF 2.1.0 the tests read back.
type sarif struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID                   string            `json:"id"`
					Name                 string            `json:"name"`
					ShortDescription     map[string]string `json:"shortDescription"`
					Help                 map[string]string `json:"help"`
					DefaultConfiguration map[string]string `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string            `json:"ruleId"`
			RuleIndex *int              `json:"ruleIndex"`
			Level     string            `json:"level"`
			Message   map[string]string `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation map[string]string `json:"artifactLocation"`
					Region           *struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// testTool names the tool in SARIF the tests write; goldens hold its version.
var testTool = SARIFTool{Name: "pactify", Version: "v0.0.0-test"}

var sarifLevels = map[checks.Severity]string{checks.SeverityError: "error", checks.SeverityWarning: "warning", checks.SeverityPending: "note"}

func TestSARIFStructure(t *testing.T) {
	t.Parallel()
	for name, findings := range map[string][]checks.Finding{
		"none":   nil,
		"sample": sampleFindings(),
		"many":   checks.Run(loadPact(t, "many")),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteSARIF(&buf, testTool, findings); err != nil {
				t.Fatal(err)
			}
			var raw map[string]any
			if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
				t.Fatal(err)
			}
			if got := keys(raw); !reflect.DeepEqual(got, []string{"$schema", "runs", "version"}) {
				t.Errorf("top-level keys %v", got)
			}
			var doc sarif
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Version != "2.1.0" || !strings.Contains(doc.Schema, "sarif-2.1.0") {
				t.Errorf("version %q schema %q", doc.Version, doc.Schema)
			}
			if len(doc.Runs) != 1 {
				t.Fatalf("%d runs", len(doc.Runs))
			}
			run := doc.Runs[0]
			if run.Tool.Driver.Name != "pactify" || !strings.HasPrefix(run.Tool.Driver.InformationURI, "https://") {
				t.Errorf("driver %+v", run.Tool.Driver.Name)
			}
			// One rule per code: the table's codes in order, then codes the
			// table does not know, once each.
			rules := run.Tool.Driver.Rules
			ids := map[string]int{}
			for i, r := range rules {
				if _, dup := ids[r.ID]; dup {
					t.Errorf("rule %s twice", r.ID)
				}
				ids[r.ID] = i
				if i < len(checks.Table) {
					c := checks.Table[i]
					if r.ID != string(c.Code) || r.ShortDescription["text"] != c.Title || r.Help["text"] != c.Hint ||
						r.DefaultConfiguration["level"] != sarifLevels[c.Severity] {
						t.Errorf("rule %d = %+v, table has %+v", i, r, c)
					}
				}
				if r.Name == "" || strings.ContainsAny(r.Name, "._") || r.ShortDescription["text"] == "" {
					t.Errorf("rule %s: name %q, description %q", r.ID, r.Name, r.ShortDescription["text"])
				}
			}
			if run.Results == nil {
				t.Error("results must be an array, never null")
			}
			if len(run.Results) != len(findings) {
				t.Fatalf("%d results for %d findings", len(run.Results), len(findings))
			}
			for i, res := range run.Results {
				f := findings[i]
				if res.RuleIndex == nil || *res.RuleIndex < 0 || *res.RuleIndex >= len(rules) || rules[*res.RuleIndex].ID != res.RuleID || res.RuleID != string(f.Code) {
					t.Errorf("result %d: ruleId %s ruleIndex %v does not point at its rule", i, res.RuleID, res.RuleIndex)
				}
				if res.Level != sarifLevels[f.Severity] {
					t.Errorf("result %d: level %s for severity %s", i, res.Level, f.Severity)
				}
				text := res.Message["text"]
				if !strings.HasPrefix(text, prose.OneLine(f.Message)) || !strings.HasSuffix(text, " Hint: "+f.Hint) || strings.ContainsAny(text, "\r\n") {
					t.Errorf("result %d message %q", i, text)
				}
				if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation["uri"] != f.Path {
					t.Errorf("result %d locations %+v", i, res.Locations)
					continue
				}
				region := res.Locations[0].PhysicalLocation.Region
				// A finding without a line points at line 1, as its
				// annotation does: code scanning requires a region.
				if want := max(f.Line, 1); region == nil || region.StartLine != want {
					t.Errorf("result %d: region %+v, want startLine %d", i, region, want)
				}
			}
			if name == "sample" {
				if _, ok := ids["future.code"]; !ok || len(rules) != len(checks.Table)+1 {
					t.Errorf("an unknown code gets one rule of its own: %d rules", len(rules))
				}
			}
		})
	}
}

func TestSARIFLevels(t *testing.T) {
	t.Parallel()
	for sev, level := range map[checks.Severity]string{checks.SeverityError: "error", checks.SeverityWarning: "warning", checks.SeverityPending: "note", "odd": "note"} {
		if got := words(sev).sarif; got != level {
			t.Errorf("SARIF level of %s = %s, want %s", sev, got, level)
		}
	}
	// A newer engine's severity renders as a note that blocks nothing.
	if w := words("odd"); w != (severityWords{"note", "notice", "⚠️ warning", "Severity odd."}) {
		t.Errorf("words of an unknown severity: %+v", w)
	}
	for code, name := range map[string]string{"rule1.self_accept": "Rule1SelfAccept", "log.malformed_json": "LogMalformedJson", "x": "X"} {
		if got := ruleName(code); got != name {
			t.Errorf("ruleName(%s) = %s, want %s", code, got, name)
		}
	}
}

func TestTextFormat(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteText(&buf, sampleFindings()); err != nil {
		t.Fatal(err)
	}
	want := ".pact/log.jsonl:7: rule1.self_accept: accept of T1 by its own owner opencode\n" +
		"    error; hint: " + checks.Describe(projection.CodeSelfAccept).Hint + "\n" +
		"\n" +
		".pact/STATE.yml: drift.missing_state: there is no STATE.yml\n" +
		"    warning; hint: " + checks.Describe(checks.CodeDriftMissing).Hint + "\n" +
		"\n" +
		".pact/log.jsonl:2: pr.unaccepted_feature: waiting for T2 (feature F): awaiting review by gpt\n" +
		"    pending; hint: " + checks.Describe(checks.CodePRUnaccepted).Hint + "\n" +
		"\n" +
		"x:1: future.code: multi line message\n" +
		"    warning; hint: h\n" +
		"x:2: future.code: again\n" +
		"    warning; hint: h\n" +
		"\n" +
		"invalid: 1 error, 3 warnings, 1 pending\n"
	if buf.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", buf.String(), want)
	}
	verdicts := []struct {
		findings []checks.Finding
		want     string
	}{
		{nil, "valid: 0 errors, 0 warnings"},
		{[]checks.Finding{{Severity: checks.SeverityWarning}}, "valid: 0 errors, 1 warning"},
		{[]checks.Finding{{Severity: checks.SeverityError}, {Severity: checks.SeverityError}}, "invalid: 2 errors, 0 warnings"},
		{[]checks.Finding{{Severity: checks.SeverityPending}, {Severity: checks.SeverityPending}}, "valid: 0 errors, 0 warnings, 2 pending"},
	}
	for _, v := range verdicts {
		if got := verdictLine(v.findings); got != v.want {
			t.Errorf("VerdictLine = %q, want %q", got, v.want)
		}
	}
	buf.Reset()
	if err := WriteText(&buf, nil); err != nil || buf.String() != "valid: 0 errors, 0 warnings\n" {
		t.Errorf("no findings: %q %v", buf.String(), err)
	}
}

// TestGolden writes validate's three formats for the testdata pacts and
// compares them with testdata/golden (go test ./report/ -run Golden -update).
func TestGolden(t *testing.T) {
	t.Parallel()
	sets := map[string]func(t *testing.T) []checks.Finding{
		"many":        func(t *testing.T) []checks.Finding { return checks.Run(loadPact(t, "many")) },
		"clean":       func(t *testing.T) []checks.Finding { return checks.Run(loadPact(t, "clean")) },
		"unsupported": func(t *testing.T) []checks.Finding { return checks.Run(loadPact(t, "unsupported")) },
		"pr": func(t *testing.T) []checks.Finding {
			// A PR on feat/cli of the many pact whose merge base had line 6
			// written differently: one rewrite, and T2 still waiting.
			in := loadPact(t, "many")
			head := readLog(t, "many")
			lines := pactfile.SplitLines(head)
			base := bytes.Join(lines[:10], []byte("\n"))
			base = bytes.Replace(base, []byte(`"branch":"feat/cli","spec":".pact/tasks/T1.md"`), []byte(`"branch":"feat/cli","spec":"T1.md"`), 1)
			out := checks.History(in.LogPath(), base, head)
			out = append(out, checks.Waiting(in.LogPath(), in.Replay.State, "feat/cli", nil, nil, nil)...)
			checks.Sort(out)
			return out
		},
	}
	for name, build := range sets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			findings := build(t)
			var text, js, sf bytes.Buffer
			if err := WriteText(&text, findings); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, findings); err != nil {
				t.Fatal(err)
			}
			if err := WriteSARIF(&sf, testTool, findings); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "golden", name+".txt"), text.Bytes())
			golden(t, filepath.Join("testdata", "golden", name+".json"), js.Bytes())
			golden(t, filepath.Join("testdata", "golden", name+".sarif"), sf.Bytes())
		})
	}
}

// TestSARIFURIs: artifactLocation.uri is a URI reference (SARIF 2.1.0
// §3.4.3), and task ids may hold spaces, '#', '?', '%' or ':'.
func TestSARIFURIs(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		".pact/log.jsonl":              ".pact/log.jsonl",
		".pact/tasks/T1.md":            ".pact/tasks/T1.md",
		".pact/tasks/x y.md":           ".pact/tasks/x%20y.md",
		".pact/tasks/a#1?b%.md":        ".pact/tasks/a%231%3Fb%25.md",
		"c:x/STATE.yml":                "./c:x/STATE.yml",
		".pact/tasks/ünï.md":           ".pact/tasks/%C3%BCn%C3%AF.md",
		"sub dir/.pact/tasks/T-1.2.md": "sub%20dir/.pact/tasks/T-1.2.md",
	}
	for path, want := range cases {
		var buf bytes.Buffer
		if err := WriteSARIF(&buf, testTool, []checks.Finding{{Code: checks.CodeTaskfileMissing, Severity: checks.SeverityWarning, Path: path, Message: "m", Hint: "h"}}); err != nil {
			t.Fatal(err)
		}
		var doc sarif
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		got := doc.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation["uri"]
		if got != want {
			t.Errorf("uri for %q = %q, want %q", path, got, want)
		}
		if u, err := url.Parse(got); err != nil || u.Scheme != "" || strings.TrimPrefix(u.Path, "./") != path {
			t.Errorf("uri %q does not parse back to the path %q: %v", got, path, err)
		}
	}
}
