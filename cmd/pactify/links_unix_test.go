//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// specialPlants are what only Unix can put in a checkout: a link to a
// device that never ends and FIFOs that block whoever opens them.
func specialPlants() []plant {
	fifo := func(rel string) func(t *testing.T, repo, _ string) {
		return func(t *testing.T, repo, _ string) {
			p := filepath.Join(repo, ".pact", filepath.FromSlash(rel))
			must(t, os.Remove(p))
			must(t, syscall.Mkfifo(p, 0o644))
		}
	}
	return []plant{
		{"log.jsonl links to /dev/zero", func(t *testing.T, repo, _ string) {
			must(t, os.Remove(filepath.Join(repo, ".pact", "log.jsonl")))
			symlinkOrSkip(t, "/dev/zero", filepath.Join(repo, ".pact", "log.jsonl"))
		}, allVerbs},
		{"log.jsonl is a FIFO", fifo("log.jsonl"), allVerbs},
		{"STATE.yml is a FIFO", fifo("STATE.yml"), append([]string{"validate", "validate --task-files", "status"}, stateWriters...)},
		{"PROJECT.md is a FIFO", fifo("PROJECT.md"), []string{"validate", "validate --task-files", "init"}},
		{"a task file is a FIFO", fifo("tasks/T1.md"), []string{"validate --task-files"}},
		{"a task file links to /dev/zero", func(t *testing.T, repo, _ string) {
			must(t, os.Remove(filepath.Join(repo, ".pact", "tasks", "T1.md")))
			symlinkOrSkip(t, "/dev/zero", filepath.Join(repo, ".pact", "tasks", "T1.md"))
		}, []string{"validate --task-files"}},
	}
}
