package doctor

import (
	"fmt"

	"github.com/pact-action/pact-action/pactfile"
)

// judgeLineEndings judges whether .gitattributes keeps git from converting
// the line endings of the pact's files (pactfile.KeepsLF). Without it a
// Windows checkout with core.autocrlf=true rewrites them with CRLF: the
// check judges them the same, so it is a warning, not a hole in the gate.
func judgeLineEndings(f Facts, dir string) Probe {
	c := Probe{ID: "pact.line_endings"}
	layout := pactfile.Layout(dir)
	file, branch := pactfile.GitAttributesFile, f.DefaultBranch
	switch {
	case f.GitAttributesUnknown != nil:
		c.Status, c.Title = StatusUnknown, "cannot read "+file+" on "+branch
		c.Detail, c.Fix = f.GitAttributesUnknown.Reason, permissionFix(f.GitAttributesUnknown)
		return c
	case pactfile.KeepsLF(f.GitAttributes, layout):
		c.Status, c.Title = StatusPass, fmt.Sprintf("%s on %s keeps git from converting the line endings of %s", file, branch, layout.Dir())
		return c
	case f.GitAttributesMissing:
		c.Title = fmt.Sprintf("no %s on %s keeps git from converting the line endings of %s", file, branch, layout.Dir())
	default:
		c.Title = fmt.Sprintf("%s on %s does not keep git from converting the line endings of %s", file, branch, layout.Dir())
	}
	c.Status = StatusWarn
	c.Detail = "a Windows checkout with core.autocrlf=true gives the pact's files CRLF line endings: the check judges them the same, but every other tool sees them rewritten"
	c.Fix = fmt.Sprintf("add this line to %s on %s (pactify init writes it):\n%s", file, branch, pactfile.GitAttributesLine(layout))
	return c
}
