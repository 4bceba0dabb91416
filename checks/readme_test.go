package checks

import (
	"os"
	"strings"
	"testing"
)

// The README's code reference is the public explanation of every finding;
// a code missing there is a code users cannot look up.
func TestReadmeExplainsEveryCode(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, c := range Table {
		row := "| `" + string(c.Code) + "` | " + string(c.Severity) + " |"
		if !strings.Contains(readme, row) {
			t.Errorf("README's finding code table lacks the row starting %q", row)
		}
	}
}
