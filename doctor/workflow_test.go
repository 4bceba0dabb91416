package doctor

import (
	"reflect"
	"testing"
)

func TestParseWorkflow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		yaml  string
		check func(t *testing.T, w *workflowFile)
	}{
		{"on as a string", "on: pull_request\njobs: {}\n", func(t *testing.T, w *workflowFile) {
			if _, ok := w.On["pull_request"]; !ok || w.On["pull_request"].Types != nil {
				t.Errorf("On = %+v", w.On)
			}
		}},
		{"types as a string, an empty event", "on:\n  pull_request:\n    types: edited\n  merge_group:\n", func(t *testing.T, w *workflowFile) {
			if got := w.On["pull_request"].Types; !reflect.DeepEqual(got, []string{"edited"}) {
				t.Errorf("types = %q", got)
			}
			if _, ok := w.On["merge_group"]; !ok {
				t.Errorf("no merge_group in %+v", w.On)
			}
		}},
		{"empty types list means no type", "on:\n  pull_request:\n    types: []\n", func(t *testing.T, w *workflowFile) {
			if got := w.On["pull_request"].EffectiveTypes("pull_request"); len(got) != 0 {
				t.Errorf("types = %q", got)
			}
		}},
		{"default types", "on: [pull_request, issue_comment]\n", func(t *testing.T, w *workflowFile) {
			if got := w.On["issue_comment"].EffectiveTypes("issue_comment"); !reflect.DeepEqual(got, []string{"created", "edited", "deleted"}) {
				t.Errorf("types = %q", got)
			}
		}},
		{"anchors and aliases", "x: &perm\n  checks: write\non: push\npermissions: *perm\n", func(t *testing.T, w *workflowFile) {
			if w.Permissions.Level("checks") != accessWrite || w.Permissions.Level("contents") != accessNone || w.Permissions.Level("metadata") != accessRead {
				t.Errorf("permissions = %+v", w.Permissions)
			}
		}},
		{"jobs, steps and inputs", "on: push\njobs:\n  a:\n    permissions: read-all\n    steps:\n      - run: echo\n      - uses: pact-action/pact-action@v1\n        with: {mode: bot, fail-on: never}\n  b:\n    uses: ./.github/workflows/reusable.yml\n",
			func(t *testing.T, w *workflowFile) {
				if len(w.Jobs) != 2 || w.Jobs[0].ID != "a" || w.Jobs[1].Uses != "./.github/workflows/reusable.yml" {
					t.Fatalf("jobs = %+v", w.Jobs)
				}
				a := w.Jobs[0]
				if a.Permissions.Level("checks") != accessRead || len(a.Steps) != 2 || a.Steps[1].Line != 7 || a.Steps[1].With["mode"] != "bot" {
					t.Errorf("job a = %+v", a)
				}
			}},
		{"filters", "on:\n  pull_request:\n    branches: main\n    paths-ignore: [docs/**]\n", func(t *testing.T, w *workflowFile) {
			tr := w.On["pull_request"]
			if !reflect.DeepEqual(tr.Branches, []string{"main"}) || !tr.PathFiltered {
				t.Errorf("trigger = %+v", tr)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := parseWorkflow([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, w)
		})
	}
	for _, bad := range []string{"", "- a list\n", "on: [\n", "just a string\n"} {
		if _, err := parseWorkflow([]byte(bad)); err == nil {
			t.Errorf("ParseWorkflow(%q) = nil error", bad)
		}
	}
}

func TestBranchFilters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		trigger trigger
		branch  string
		want    bool
	}{
		{trigger{}, "main", true},
		{trigger{Branches: []string{"main"}}, "main", true},
		{trigger{Branches: []string{"develop"}}, "main", false},
		{trigger{Branches: []string{"releases/*"}}, "releases/v1", true},
		{trigger{Branches: []string{"releases/*"}}, "releases/v1/hotfix", false},
		{trigger{Branches: []string{"releases/**"}}, "releases/v1/hotfix", true},
		{trigger{Branches: []string{"**", "!main"}}, "main", false},
		{trigger{Branches: []string{"!main", "**"}}, "main", true},
		{trigger{Branches: []string{"mai?n"}}, "man", true},
		{trigger{Branches: []string{"mai?n"}}, "mn", false},
		{trigger{Branches: []string{"mai?n"}}, "main", true},
		{trigger{Branches: []string{"v[12].x"}}, "v2.x", true},
		{trigger{Branches: []string{"v[12].x"}}, "v3.x", false},
		{trigger{Branches: []string{"ma+in"}}, "maaain", true},
		{trigger{BranchesIgnore: []string{"main"}}, "main", false},
		{trigger{BranchesIgnore: []string{"feature/*"}}, "main", true},
		{trigger{Branches: []string{"a.b"}}, "axb", false},
	}
	for _, tt := range tests {
		if got := tt.trigger.RunsFor(tt.branch); got != tt.want {
			t.Errorf("%+v RunsFor(%q) = %v, want %v", tt.trigger, tt.branch, got, tt.want)
		}
	}
}

func TestUsesThisAction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		uses string
		self bool
		want bool
	}{
		{"pact-action/pact-action@v1", false, true},
		{"Pact-Action/pact-action@0123456789abcdef0123456789abcdef01234567", false, true},
		{"pact-action/pact-action", false, false},
		{"pact-action/pact-action/sub@v1", false, false},
		{"pact-action/pact-action-fork@v1", false, false},
		{"docker://ghcr.io/pact-action/pact-action@sha256:abc", false, true},
		{"docker://ghcr.io/pact-action/pact-action:v1.2.3", false, true},
		{"docker://ghcr.io/pact-action/pact-actionx:v1", false, false},
		{"./", true, true},
		{"./", false, false},
		{"./other", true, false},
	}
	for _, tt := range tests {
		if got := usesThisAction(tt.uses, tt.self); got != tt.want {
			t.Errorf("UsesThisAction(%q, %v) = %v, want %v", tt.uses, tt.self, got, tt.want)
		}
	}
}

// FuzzParseWorkflow: any bytes give a workflow or an error, never a panic,
// and judging what parsed never panics either.
func FuzzParseWorkflow(f *testing.F) {
	f.Add([]byte(readmeCheckWorkflow))
	f.Add([]byte(readmeBotWorkflow))
	f.Add([]byte("on: [pull_request]\npermissions: write-all\njobs:\n  a:\n    steps: [{uses: ./}]\n"))
	f.Add([]byte("on:\n  pull_request:\n    branches: ['[', '**', '!x+']\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := parseWorkflow(b)
		if err != nil {
			return
		}
		Judge(Facts{Repository: actionRepository, DefaultBranch: "main", Workflows: []workflow{{Path: "w.yml", File: w}}})
	})
}
