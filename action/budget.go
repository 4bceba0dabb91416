package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/report"
)

// The byte budget of one judgement. Whoever can push to a pull request
// writes the bytes under .pact/, so a judgement reads only what the
// protocol defines — the log, STATE.yml, PROJECT.md and the task files of
// the tasks the log assigns — and counts every byte it reads of them (at
// the head, at the merge base, and at the commits provenance looks at),
// from the API or the workspace alike. Past the budget it stops, and the
// check fails saying so: a pull request cannot make the job hold more
// than that, however many or large the files it adds.

// defaultMaxPactBytes is the budget when the max-pact-bytes input leaves
// it unset. A pact of 100,000 events (a 25 MB log, a 4 MB STATE.yml and
// 20,000 task files) needs about 60 MB of it, plus a log's size for each
// other commit provenance reads the log at.
const defaultMaxPactBytes int64 = 256 << 20

// pactTooLargeError is a judgement stopped by its byte budget: reading
// Path would have gone past it.
type pactTooLargeError struct {
	Path string
	// Size is the file's size; -1 when it is only known to be larger than
	// Left.
	Size int64
	// Left is what was left of the budget; Max the budget.
	Left, Max int64
}

func (e *pactTooLargeError) Error() string {
	size := "more than " + prose.Bytes(e.Left)
	if e.Size >= 0 {
		size = prose.Bytes(e.Size)
	}
	return fmt.Sprintf("the pact files this check must read come to more than its budget of %s (the max-pact-bytes input): %s is %s, and %s of it was left; keep .pact/ to what pactify writes there, or raise max-pact-bytes",
		prose.Bytes(e.Max), e.Path, size, prose.Bytes(e.Left))
}

// readBudget counts the bytes one judgement reads of the pact.
type readBudget struct {
	mu        sync.Mutex
	max, used int64
}

func newReadBudget(max int64) *readBudget {
	if max <= 0 {
		max = defaultMaxPactBytes
	}
	return &readBudget{max: max}
}

// left is what may still be read.
func (b *readBudget) left() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.max - b.used
}

// take counts n bytes of path, or refuses them when they do not fit.
func (b *readBudget) take(path string, n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.max-b.used {
		return &pactTooLargeError{Path: path, Size: n, Left: b.max - b.used, Max: b.max}
	}
	b.used += n
	return nil
}

// over is the refusal of a file only known to be larger than what is left.
func (b *readBudget) over(path string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return &pactTooLargeError{Path: path, Size: -1, Left: b.max - b.used, Max: b.max}
}

// limit is what a read of one file may return: what is left of the budget,
// and at most perFile. binding reports whether the budget is the bound.
func (b *readBudget) limit(perFile int64) (n int64, binding bool) {
	left := b.left()
	if perFile >= 0 && perFile < left {
		return perFile, false
	}
	return left, true
}

// budgeted is a reader whose reads of files are counted against one
// budget: every file a judgement reads through GitHub goes through it.
type budgeted struct {
	reader
	b *readBudget
}

func (r budgeted) ReadFileLimit(ctx context.Context, path, ref string, limit int64) ([]byte, error) {
	n, binding := r.b.limit(limit)
	data, err := r.reader.ReadFileLimit(ctx, path, ref, n)
	if errors.Is(err, ghapi.ErrTooLarge) && binding {
		return nil, r.b.over(path)
	}
	if err != nil {
		return nil, err
	}
	return data, r.b.take(path, int64(len(data)))
}

// ReadFileStream counts what fn reads of the file, when it is done.
func (r budgeted) ReadFileStream(ctx context.Context, path, ref string, limit int64, fn func(io.Reader) error) error {
	n, binding := r.b.limit(limit)
	counted := &countingReader{}
	err := r.reader.ReadFileStream(ctx, path, ref, n, func(rd io.Reader) error {
		counted.r = rd
		return fn(counted)
	})
	if errors.Is(err, ghapi.ErrTooLarge) && binding {
		return r.b.over(path)
	}
	if err != nil {
		return err
	}
	return r.b.take(path, counted.n)
}

// countingReader counts what is read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (r budgeted) ReadTrees(ctx context.Context, reads ...ghapi.TreeRead) ([]ghapi.Tree, error) {
	counted := make([]ghapi.TreeRead, len(reads))
	for i, rd := range reads {
		take := rd.Take
		rd.Take = func(path string, size int64) error {
			if take != nil {
				if err := take(path, size); err != nil {
					return err
				}
			}
			return r.b.take(path, size)
		}
		counted[i] = rd
	}
	trees, err := r.reader.ReadTrees(ctx, counted...)
	if err != nil {
		return nil, err
	}
	// A directory's listing is held too: a pull request that adds a
	// million files costs their names, never their bytes.
	for i, rd := range reads {
		for _, dir := range rd.Dirs {
			if err := r.b.take(dir+"/ (the list of its files)", listingSize(trees[i], dir)); err != nil {
				return nil, err
			}
		}
	}
	return trees, nil
}

// listedEntryBytes is what one listed entry costs besides its name: its
// kind, mode, object id and size as GitHub sends them.
const listedEntryBytes = 96

// listingSize is what the listing of dir in t holds.
func listingSize(t ghapi.Tree, dir string) int64 {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	n := int64(0)
	for p := range t.Entries {
		if name, ok := strings.CutPrefix(p, prefix); ok && !strings.Contains(name, "/") {
			n += int64(len(name)) + listedEntryBytes
		}
	}
	return n
}

// ReadBlobs counts the blobs by the sizes their tree listed before any is
// read (GitHub checks the bytes against the id, which fixes the size).
func (r budgeted) ReadBlobs(ctx context.Context, blobs []ghapi.BlobRef) (map[string][]byte, error) {
	for _, bl := range blobs {
		if err := r.b.take(bl.Path, bl.Size); err != nil {
			return nil, err
		}
	}
	return r.reader.ReadBlobs(ctx, blobs)
}

// stoppedSummary is the summary of a check run completed as failed
// without a verdict (check's error): a pact too large to read says only
// that (a re-run would stop the same way); anything else asks for a
// re-run.
func stoppedSummary(why error) string {
	var tl *pactTooLargeError
	if errors.As(why, &tl) {
		return report.Stopped(tl.Error(), false)
	}
	return report.Stopped(why.Error(), true)
}
