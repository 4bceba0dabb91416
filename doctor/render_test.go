package doctor

import (
	"bytes"
	"strings"
	"testing"
)

var sample = []Probe{
	{ID: "a", Status: StatusPass, Title: "all good"},
	{ID: "b", Status: StatusFail, Title: "broken", Detail: "why", Fix: "in x.yml:\non:\n  merge_group:"},
	{ID: "c", Status: StatusWarn, Title: "look", Fix: "one line"},
	{ID: "d", Status: StatusUnknown, Title: "cannot tell", Detail: "403"},
}

func TestWriteText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteText(&b, "o/r", "main", sample); err != nil {
		t.Fatal(err)
	}
	want := `pact-action doctor: o/r (default branch main)

✓ all good
✗ broken
    why
    fix: in x.yml:
        on:
          merge_group:
! look
    fix: one line
? cannot tell
    403

1 passed, 1 failed, 1 warning, 1 unknown
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteJSON(&b, "o/r", []Probe{{ID: "seat.rev", Status: StatusFail, Title: "t", Fix: "rev: [<github-login>]"}}); err != nil {
		t.Fatal(err)
	}
	want := `{
  "repository": "o/r",
  "ok": false,
  "checks": [
    {
      "id": "seat.rev",
      "status": "fail",
      "title": "t",
      "detail": "",
      "fix": "rev: [<github-login>]"
    }
  ]
}
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteJSON(&b, "o/r", nil); err != nil || b.String() != "{\n  \"repository\": \"o/r\",\n  \"ok\": true,\n  \"checks\": []\n}\n" {
		t.Errorf("no probes: %q, %v", b.String(), err)
	}
}

// Text from the repository's files cannot forge a line of the report.
func TestWriteTextKeepsEachProbeOnItsLines(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	forged := []Probe{{ID: "x", Status: StatusFail, Title: "check \"evil\n✓ everything is fine\" is not required", Detail: "a\r\n✓ b", Fix: "set:\n✓ c"}}
	if err := WriteText(&b, "o/r", "main", forged); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "✓") {
			t.Errorf("a forged line at the top level: %q\n%s", line, b.String())
		}
	}
	if !strings.Contains(b.String(), "✗ check \"evil ✓ everything is fine\" is not required\n    a ✓ b\n") {
		t.Errorf("got:\n%s", b.String())
	}
}
