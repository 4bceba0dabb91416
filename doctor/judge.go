package doctor

import (
	"fmt"
	"slices"
	"strings"
)

// Status is the verdict of one probe.
type Status string

// Statuses, from good to bad. Only StatusFail makes doctor exit 1: a
// warning is worth a look, and unknown says what the token could not read.
const (
	StatusPass    Status = "pass"
	StatusWarn    Status = "warn"
	StatusUnknown Status = "unknown"
	StatusFail    Status = "fail"
)

// Probe is one line of doctor's report: one setting looked at, and what
// holds. Its JSON is an element of the report's "checks" array, a name
// kept for the scripts that read it.
type Probe struct {
	// ID is stable: a family ("branch.required_check") or a family and the
	// seat or login it is about ("seat.lead", "login.octocat").
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Title is the line itself, a statement of how things are.
	Title string `json:"title"`
	// Detail says why it matters or what was found.
	Detail string `json:"detail"`
	// Fix is the exact change: a settings path or a YAML snippet.
	Fix string `json:"fix"`
}

// OK reports that no probe failed.
func OK(probes []Probe) bool {
	return !slices.ContainsFunc(probes, func(p Probe) bool { return p.Status == StatusFail })
}

// Judge decides every probe from the facts. It is pure.
func Judge(f Facts) []Probe {
	if f.CheckName == "" {
		f.CheckName = "pact"
	}
	var out []Probe
	out = append(out, judgeBranch(f)...)
	out = append(out, judgeWorkflows(f)...)
	out = append(out, judgePact(f)...)
	return out
}

// permissionFix says how to make an unreadable fact readable.
func permissionFix(u *unknown) string {
	if u == nil || u.Permission == "" {
		return ""
	}
	scope, _, _ := strings.Cut(u.Permission, ":")
	return fmt.Sprintf("give the token %s (fine-grained token: Repository permissions → %s → Read-only), then run doctor again", u.Permission, scope)
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
