// Package repogen writes a realistic, deterministic .pact/ directory for
// benchmarks and load tests: the log internal/testkit/loggen generates, STATE.yml
// exactly as `pactify log --replay` writes it, PROJECT.md, and a task file
// per task exactly as `pactify assign` writes it.
//
// It is loggen's second half, in its own package because it replays the log
// with projection, whose own tests import loggen.
package repogen

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// formatVersion changes whenever the files written for a given Config change
// (loggen.Version included); caches of generated repositories should be
// keyed by it.
const formatVersion = 100*loggen.Version + 1

// Options says which files besides the log to write.
type Options struct {
	// LogOnly writes log.jsonl and PROJECT.md alone, as a log copied out of
	// a repository would be.
	LogOnly bool
}

// Stats describes a generated repository.
type Stats struct {
	loggen.Stats
	StateBytes int64 // size of STATE.yml
	TaskFiles  int   // task files written
}

// Write generates the repository cfg describes into root/.pact, which must
// not hold a log yet.
func Write(root string, cfg loggen.Config, opts Options) (Stats, error) {
	var st Stats
	var err error
	dir := filepath.Join(root, ".pact")
	if err := os.MkdirAll(filepath.Join(dir, "tasks"), 0o755); err != nil {
		return st, err
	}
	logPath := filepath.Join(dir, "log.jsonl")
	if st.Stats, err = writeLog(logPath, cfg); err != nil {
		return st, err
	}
	if err := os.WriteFile(filepath.Join(dir, "PROJECT.md"), []byte(projectMD), 0o644); err != nil {
		return st, err
	}
	if opts.LogOnly {
		return st, nil
	}
	f, err := os.Open(logPath)
	if err != nil {
		return st, err
	}
	_, res, err := projection.Read(f, projection.ReadOptions{})
	_ = f.Close() // only read
	if err != nil {
		return st, fmt.Errorf("replay the generated log: %w", err)
	}
	state := projection.RenderBytes(res.State)
	st.StateBytes = int64(len(state))
	if err := os.WriteFile(filepath.Join(dir, "STATE.yml"), state, 0o644); err != nil {
		return st, err
	}
	st.TaskFiles, err = writeTaskFiles(filepath.Join(dir, "tasks"), res.State)
	return st, err
}

// projectMD is PROJECT.md as `pactify init` writes it for loggen's roster.
const projectMD = `<!-- pact:begin -->
# acme-widgets — Pact Charter (protocol_version: 1)

This block is managed by ` + "`pactify init`" + `; edit the charter outside it.

| seat | roles | entry |
|---|---|---|
| lead | orchestrator | AGENTS.md |
| opencode | worker | AGENTS.md |
| claude-opus | reviewer, worker | CLAUDE.md |
| codex | worker, reviewer | AGENTS.md |
| gemini-pro | reviewer | GEMINI.md |
| aider | worker | CONVENTIONS.md |
| qwen-coder | worker, reviewer | AGENTS.md |
| deepseek-r1 | reviewer, worker | AGENTS.md |

Base branch: ` + "`main`. The log `.pact/log.jsonl` is authoritative; `STATE.yml` is its projection." + `
<!-- pact:end -->

## Charter

Describe the project's goals here.
`

// writeTaskFiles writes tasks/<id>.md for every task, as assign does, on
// a few goroutines.
func writeTaskFiles(dir string, st *projection.State) (int, error) {
	ids := st.TaskOrder
	workers := max(2, runtime.GOMAXPROCS(0))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(ids); i += workers {
				t := st.Tasks[ids[i]]
				b := pactfile.TaskFile(t.FrontMatter(), nil)
				if err := os.WriteFile(filepath.Join(dir, t.ID+".md"), b, 0o644); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

func writeLog(path string, cfg loggen.Config) (loggen.Stats, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return loggen.Stats{}, err
	}
	st, err := loggen.Write(f, cfg)
	if err != nil {
		_ = f.Close() // the write's error is the one to report
		return st, err
	}
	return st, f.Close()
}

// Cached returns the root of the repository cfg and opts describe under
// cache, generating it on first use. The name holds Version, so a generator
// change never reuses an old repository; a marker written last means an
// interrupted generation is started again.
func Cached(cache string, cfg loggen.Config, opts Options) (string, error) {
	name := fmt.Sprintf("repo-v%d-n%d-seed%d-defects%g-swaps%g", formatVersion, cfg.Lines, cfg.Seed, cfg.Defects, cfg.Swaps)
	if cfg.NoMalformed {
		name += "-nomalformed"
	}
	if opts.LogOnly {
		name += "-logonly"
	}
	root := filepath.Join(cache, name)
	marker := filepath.Join(root, ".complete")
	if _, err := os.Stat(marker); err == nil {
		return root, nil
	}
	if err := os.RemoveAll(root); err != nil {
		return "", err
	}
	if _, err := Write(root, cfg, opts); err != nil {
		return "", err
	}
	return root, os.WriteFile(marker, nil, 0o644)
}
