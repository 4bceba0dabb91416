package main

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestHelpNamesEveryInput holds the reference to action.yml: every input
// the action reads is named where --help says what the action reads.
func TestHelpNamesEveryInput(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatal(err)
	}
	if len(action.Inputs) == 0 {
		t.Fatal("action.yml declares no inputs")
	}
	// The paragraph about the GitHub Action, up to the first blank line
	// after it: naming an input elsewhere (--pact-dir) does not count.
	_, rest, _ := strings.Cut(helpText, "In a GitHub workflow")
	paragraph, _, _ := strings.Cut(rest, "\n\n")
	paragraph = strings.Join(strings.Fields(paragraph), " ")
	for name := range action.Inputs {
		if !strings.Contains(paragraph, name+",") && !strings.Contains(paragraph, name+";") {
			t.Errorf("pact-action --help does not name the input %s of action.yml where it lists the inputs:\n%s", name, paragraph)
		}
	}
}
