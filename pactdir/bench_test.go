package pactdir

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/internal/testkit/loggen/repogen"
)

// The benchmarks judge generated repositories (internal/testkit/loggen/repogen:
// seed 1, no defects, 1% of lines swapped; log.jsonl, STATE.yml as
// `pactify log --replay` writes it, a task file per task) of 10k, 100k, 1M
// and 2M events, generated once into ../../testdata/large (ignored by git;
// the 2M one takes a few minutes and about 800 MB).
//
//	go test ./pactdir/ -run '^$' -bench Validate -count 6 -timeout 60m | tee new.txt
//	benchstat -col /impl new.txt
//
// impl=new is Load then checks.Run, what `pactify validate` does besides
// printing; impl=reference is the path before it compared bytes first
// (referenceFindings: yaml.v3 parses STATE.yml and every task file). The
// reference runs up to 100k events only: at 1M it takes about a minute and
// a gigabyte, and at 2M it says "STATE.yml is too large".

var benchSizes = []struct {
	name  string
	lines int
}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}, {"2M", 2_000_000}}

// benchRepo returns the generated repository of lines events.
func benchRepo(b *testing.B, lines int) Dir {
	b.Helper()
	root, err := repogen.Cached(filepath.Join("..", "..", "testdata", "large"), loggen.Config{Lines: lines, Seed: 1, Swaps: 0.01}, repogen.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return Dir{Root: root, Name: ".pact"}
}

func BenchmarkValidate(b *testing.B) {
	for _, size := range benchSizes {
		impls := []struct {
			name string
			run  func(b *testing.B, d Dir) []checks.Finding
		}{
			{"new", func(b *testing.B, d Dir) []checks.Finding {
				in, err := d.Load(LoadOptions{Prejudge: checks.FastPaths{}})
				if err != nil {
					b.Fatal(err)
				}
				return checks.Run(checks.Input(in))
			}},
		}
		if size.lines <= 100_000 {
			impls = append(impls, struct {
				name string
				run  func(b *testing.B, d Dir) []checks.Finding
			}{"reference", func(b *testing.B, d Dir) []checks.Finding {
				return referenceFindings(b, d)
			}})
		}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("impl=%s/n=%s", impl.name, size.name), func(b *testing.B) {
				d := benchRepo(b, size.lines)
				for b.Loop() {
					if f := impl.run(b, d); len(f) != 0 {
						b.Fatalf("a clean repository has %d findings: %v", len(f), f[0])
					}
				}
			})
		}
	}
}
