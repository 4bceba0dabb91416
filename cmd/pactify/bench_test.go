package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/internal/testkit/loggen/repogen"
)

// BenchmarkVerbs runs the pactify binary on generated repositories
// (internal/testkit/loggen/repogen: seed 1, no defects, 1% of lines swapped;
// log.jsonl, STATE.yml, PROJECT.md and a task file per task) of 10k, 100k,
// 1M and 2M events, generated once into ../../testdata/large (ignored by
// git), with `jq -c . log.jsonl` as the baseline of the same run:
//
//	go test ./cmd/pactify/ -run '^$' -bench Verbs -count 6 -timeout 120m | tee verbs.txt
//	benchstat -col /verb verbs.txt
//
// Besides time it reports peak-RSS-MiB, the process's maximum resident set.
// Writing verbs run on a copy of the repository's .pact (its tasks/ linked),
// restored between runs: join is a re-join of a seat, assign a new task,
// log-replay rebuilds a STATE.yml that lacks its last half.
func BenchmarkVerbs(b *testing.B) {
	for _, size := range []struct {
		name  string
		lines int
	}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}, {"2M", 2_000_000}} {
		for _, verb := range []string{"jq", "validate", "join", "assign", "log-replay"} {
			b.Run(fmt.Sprintf("n=%s/verb=%s", size.name, verb), func(b *testing.B) {
				src, err := repogen.Cached(filepath.Join("..", "..", "testdata", "large"), loggen.Config{Lines: size.lines, Seed: 1, Swaps: 0.01}, repogen.Options{})
				if err == nil {
					src, err = filepath.Abs(src)
				}
				if err != nil {
					b.Fatal(err)
				}
				benchVerb(b, src, verb)
			})
		}
	}
}

func benchVerb(b *testing.B, src, verb string) {
	srcPact := filepath.Join(src, ".pact")
	dir := src
	var restore func()
	if verb == "join" || verb == "assign" || verb == "log-replay" {
		dir = b.TempDir()
		pact := filepath.Join(dir, ".pact")
		if err := os.Mkdir(pact, 0o755); err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"log.jsonl", "STATE.yml", "PROJECT.md"} {
			copyFile(b, filepath.Join(srcPact, name), filepath.Join(pact, name))
		}
		if err := os.Symlink(filepath.Join(srcPact, "tasks"), filepath.Join(pact, "tasks")); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(pact, "log.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		restore = func() {
			if err := os.Truncate(filepath.Join(pact, "log.jsonl"), fi.Size()); err != nil {
				b.Fatal(err)
			}
			copyFile(b, filepath.Join(srcPact, "STATE.yml"), filepath.Join(pact, "STATE.yml"))
			removeBenchTask(b, srcPact)
			if verb == "log-replay" {
				state := filepath.Join(pact, "STATE.yml")
				st, err := os.Stat(state)
				if err != nil {
					b.Fatal(err)
				}
				if err := os.Truncate(state, st.Size()/2); err != nil {
					b.Fatal(err)
				}
			}
		}
		restore()
		b.Cleanup(func() { removeBenchTask(b, srcPact) })
	}
	var args []string
	switch verb {
	case "jq":
		if _, err := exec.LookPath("jq"); err != nil {
			b.Skip("jq is not installed")
		}
	case "validate":
		args = []string{"validate"}
	case "join":
		args = []string{"join", "opencode", "--roles", "worker"}
	case "assign":
		args = []string{"assign", "BENCH-1", "--feature", "BENCH", "--branch", "feat/bench", "--owner", "opencode", "--reviewer", "codex"}
	case "log-replay":
		args = []string{"log", "--replay"}
	}
	peak := int64(0)
	for b.Loop() {
		var cmd *exec.Cmd
		if verb == "jq" {
			cmd = exec.Command("jq", "-c", ".", filepath.Join(srcPact, "log.jsonl"))
		} else {
			cmd = exec.Command(binPath, args...)
			cmd.Env = append(os.Environ(), "PACT_AGENT_ID="+map[bool]string{true: "opencode", false: "lead"}[verb == "join"])
		}
		cmd.Dir = dir
		cmd.Stdout = io.Discard
		out, err := os.CreateTemp(b.TempDir(), "stderr")
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stderr = out
		if err := cmd.Run(); err != nil {
			msg, _ := os.ReadFile(out.Name())
			b.Fatalf("%s: %v\n%s", cmd, err, msg)
		}
		if err := out.Close(); err != nil {
			b.Fatal(err)
		}
		peak = max(peak, peakRSSKiB(cmd.ProcessState))
		if restore != nil {
			b.StopTimer()
			restore()
			b.StartTimer()
		}
	}
	if peak > 0 {
		b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
	}
}

// removeBenchTask removes the task file an assign run wrote into the
// shared source tasks directory; it is absent after the other verbs.
func removeBenchTask(b *testing.B, srcPact string) {
	b.Helper()
	if err := os.Remove(filepath.Join(srcPact, "tasks", "BENCH-1.md")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		b.Fatal(err)
	}
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkConcurrentAppends measures appends per second with 2, 8 and 32
// pactify processes appending at once (each a re-join, four in a row) to
// the generated 10k-event repository: what the lock, the replay of the log
// and the durable write cost together. With PACTIFY_BENCH_BASE naming
// another pactify binary (an older build), every iteration runs that
// binary's round and then this one's on the same pact, so a loaded machine
// weighs on both alike (appends/s-base and appends/s-new):
//
//	PACTIFY_BENCH_BASE=/tmp/pactify-old go test ./cmd/pactify -run '^$' -bench ConcurrentAppends -benchtime 3x -count 2
func BenchmarkConcurrentAppends(b *testing.B) {
	src, err := repogen.Cached(filepath.Join("..", "..", "testdata", "large"), loggen.Config{Lines: 10_000, Seed: 1, Swaps: 0.01}, repogen.Options{})
	if err == nil {
		src, err = filepath.Abs(src)
	}
	if err != nil {
		b.Fatal(err)
	}
	bins := []struct{ name, path string }{{"new", binPath}}
	if base := os.Getenv("PACTIFY_BENCH_BASE"); base != "" {
		bins = []struct{ name, path string }{{"base", base}, {"new", binPath}}
	}
	const each = 4
	for _, writers := range []int{2, 8, 32} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			dir := b.TempDir()
			pact := filepath.Join(dir, ".pact")
			if err := os.Mkdir(pact, 0o755); err != nil {
				b.Fatal(err)
			}
			for _, name := range []string{"log.jsonl", "STATE.yml", "PROJECT.md"} {
				copyFile(b, filepath.Join(src, ".pact", name), filepath.Join(pact, name))
			}
			env := append(os.Environ(), "PACT_AGENT_ID=opencode")
			elapsed := make([]time.Duration, len(bins))
			for b.Loop() {
				for i, bin := range bins {
					start := time.Now()
					var wg sync.WaitGroup
					errs := make(chan error, writers)
					for range writers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for range each {
								cmd := exec.Command(bin.path, "join", "opencode", "--roles", "worker")
								cmd.Dir, cmd.Env = dir, env
								if out, err := cmd.CombinedOutput(); err != nil {
									errs <- fmt.Errorf("%w\n%s", err, out)
									return
								}
							}
						}()
					}
					wg.Wait()
					elapsed[i] += time.Since(start)
					close(errs)
					for err := range errs {
						b.Fatal(err)
					}
				}
			}
			for i, bin := range bins {
				b.ReportMetric(float64(b.N*writers*each)/elapsed[i].Seconds(), "appends/s-"+bin.name)
			}
		})
	}
}
