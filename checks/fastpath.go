package checks

import (
	"io"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// FastPaths are the pre-judgements a loader of a large pact asks before it
// keeps a file, each beside the rule it must equal (TestFastPathsAgreeWithChecks):
// a file one of them accepts is one its rule would pass, so the loader only
// counts it (Input.StateMatched, Input.TaskFilesMatched) and never holds it.
// A loader takes it as its options (pactdir.LoadOptions.Prejudge): the
// disk layer reads, and the verdict stays here.
type FastPaths struct{}

// State is the fast path of Drift (docs/semantics.md, pact v1 §7.1 (a)):
// it compares STATE.yml, streamed from r, with what projection.Render
// writes for st, stopping at the first difference. A file that holds
// exactly that cannot drift; any other is for Drift to judge, whole.
func (FastPaths) State(r io.Reader, st *projection.State) (bool, error) {
	return pactfile.Holds(r, func(w io.Writer) error { return projection.Render(w, st) })
}

// TaskFile is the fast path of TaskFile (docs/semantics.md, pact v1 §3.4):
// whether a task file beginning with prefix begins with exactly the front
// matter pactify writes for t, which TaskFile accepts whatever follows.
// False says only that prefix does not show it: a longer prefix may, and
// the whole file is TaskFile's to judge.
func (FastPaths) TaskFile(prefix []byte, t *projection.Task) bool {
	return pactfile.TaskMatches(prefix, t.FrontMatter())
}
