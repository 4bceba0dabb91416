package checks

import (
	"fmt"
	"maps"
	"slices"

	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/projection"
)

// MaxListed is how many findings of one code and severity a verdict lists
// in full; the others are counted in one entry (docs/semantics.md §7,
// bounded output and memory). It is projection's cap, which the reading of
// the log applies as it reads, so a verdict never holds more than the
// reading kept.
const MaxListed = projection.MaxListed

// listKey is what findings are capped by.
type listKey struct {
	code     projection.Code
	severity Severity
}

// Cap sorts findings (Sort) and keeps, of each code and severity, the
// first MaxListed in that order; the others (and any entry already
// standing for omitted ones) become one entry that counts them all, on
// the file of the first of them. The result is sorted, Count of it is
// Count of the input, and it holds at most MaxListed+1 entries per code and
// severity.
func Cap(findings []Finding) []Finding {
	Sort(findings)
	listed := map[listKey]int{}
	omitted := map[listKey]int{}
	at := map[listKey]int{} // index in out of the key's omitted entry
	out := findings[:0:0]
	for _, f := range findings {
		k := listKey{f.Code, f.Severity}
		if f.Omitted == 0 && listed[k] < MaxListed {
			listed[k]++
			out = append(out, f.clipped())
			continue
		}
		if _, ok := at[k]; !ok {
			at[k] = len(out)
			out = append(out, f)
		}
		omitted[k] += f.count()
	}
	for k, i := range at {
		out[i] = omittedEntry(out[i], omitted[k])
	}
	Sort(out)
	return out
}

// listing gathers findings for Cap while a rule judges a log line by line:
// it holds a bounded number of them whatever how many it is given (Cap
// whenever they have doubled), and Cap of what it holds is Cap of all it
// was given, for what Cap leaves out of a part it leaves out of the whole.
// A rule that may find something on every line of a log of hundreds of
// thousands collects through one (docs/semantics.md §7).
type listing struct {
	fs []Finding
	// next is the count at which fs is capped again.
	next int
}

func (l *listing) add(fs ...Finding) {
	l.fs = append(l.fs, fs...)
	if len(l.fs) > max(l.next, 4*MaxListed) {
		l.fs = Cap(l.fs)
		l.next = 2 * len(l.fs)
	}
}

// A line of the log can hold a value of up to a megabyte, and a finding
// quotes it (its event_id, task_id, feature, and its message): a listed
// finding shows at most maxValueBytes of each value and maxMessageBytes of
// its message, so that what a verdict lists stays bounded whatever the
// lines hold (docs/semantics.md §7).
const (
	maxValueBytes   = 256
	maxMessageBytes = 1024
)

// clipped is f with its values cut to the bounds, each cut ending in "…".
func (f Finding) clipped() Finding {
	f.EventID = prose.Clip(f.EventID, maxValueBytes, "…")
	f.TaskID = prose.Clip(f.TaskID, maxValueBytes, "…")
	f.Feature = prose.Clip(f.Feature, maxValueBytes, "…")
	f.Message = prose.Clip(f.Message, maxMessageBytes, "…")
	return f
}

// omittedEntry is the entry that stands for n findings like f left out:
// on f's file, without a line or an event.
func omittedEntry(f Finding, n int) Finding {
	info := Describe(f.Code)
	return Finding{Code: f.Code, Severity: f.Severity, Path: f.Path, Omitted: n, Hint: info.Hint,
		Message: fmt.Sprintf("%s with this code not listed (only the first %d of each code are)", prose.Plural(n, "more finding"), MaxListed)}
}

// omittedRejections are the entries for the rejections a reading of the
// log counted but did not list.
func omittedRejections(logPath string, scan *projection.Scan, res *projection.Result) []Finding {
	var out []Finding
	if scan != nil {
		for _, code := range slices.Sorted(maps.Keys(scan.MalformedOmitted)) {
			out = append(out, omittedEntry(newFinding(code, logPath, 0, ""), scan.MalformedOmitted[code]))
		}
	}
	for _, o := range res.Omitted {
		f := fromRejection(logPath, projection.Rejection{Code: o.Code, Identical: o.Identical})
		out = append(out, omittedEntry(f, o.Count))
	}
	return out
}
