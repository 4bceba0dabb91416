package pactdir

import (
	"strings"

	"github.com/pact-action/pact-action/checks"
)

// ReplaceBlock puts block (without markers) between the pact markers of text,
// appending a new marked block when text has none. Text outside the markers
// is never touched, so running init again changes nothing else.
func ReplaceBlock(text, block string) string {
	marked := checks.BlockBegin + "\n" + strings.TrimRight(block, "\n") + "\n" + checks.BlockEnd
	begin := strings.Index(text, checks.BlockBegin)
	if begin >= 0 {
		if end := strings.Index(text[begin:], checks.BlockEnd); end >= 0 {
			return text[:begin] + marked + text[begin+end+len(checks.BlockEnd):]
		}
	}
	switch {
	case text == "":
		return marked + "\n"
	case strings.HasSuffix(text, "\n\n"):
		return text + marked + "\n"
	case strings.HasSuffix(text, "\n"):
		return text + "\n" + marked + "\n"
	}
	return text + "\n\n" + marked + "\n"
}
