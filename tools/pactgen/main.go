// Command pactgen writes a large, deterministic Pact v1 log, or a whole
// .pact/ directory around it, for benchmarks (scripts/bench.sh). It is a
// development tool, under tools/ because it is never shipped:
//
//	go run ./tools/pactgen -n 1000 -pact /tmp/small
//	pactgen -n 1000000 -seed 1 -o log.jsonl
//	pactgen -n 1000000 -defects 0.001 -pact /tmp/bench   # /tmp/bench/.pact/{log.jsonl,STATE.yml,PROJECT.md,tasks/}
//	pactgen -n 1000000 -pact /tmp/bench -files=false     # log.jsonl and PROJECT.md only
//
// The same flags always give the same bytes (see internal/testkit/loggen and
// internal/testkit/loggen/repogen).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/internal/testkit/loggen/repogen"
)

func main() {
	var cfg loggen.Config
	flag.IntVar(&cfg.Lines, "n", 1_000_000, "number of lines (events, defects included)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed; the same seed gives the same log")
	flag.Float64Var(&cfg.Defects, "defects", 0, "fraction of lines that are defects a validator reports")
	flag.Float64Var(&cfg.Swaps, "swaps", 0.01, "fraction of lines swapped with the next one in the file (timestamps kept)")
	malformed := flag.Bool("malformed", true, "let defects include truncated lines (false: every line is JSON, for jq)")
	out := flag.String("o", "-", "output file, - for standard output")
	pact := flag.String("pact", "", "write the repository DIR/.pact/ instead of -o")
	files := flag.Bool("files", true, "with -pact: write STATE.yml (as `pactify log --replay` does) and a task file per task (as `pactify assign` does)")
	flag.Parse()
	cfg.NoMalformed = !*malformed
	if flag.NArg() != 0 || cfg.Lines < 0 || cfg.Defects < 0 || cfg.Defects > 0.5 || cfg.Swaps < 0 || cfg.Swaps > 0.5 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(cfg, *out, *pact, *files); err != nil {
		fmt.Fprintln(os.Stderr, "pactgen:", err)
		os.Exit(1)
	}
}

func run(cfg loggen.Config, out, pact string, files bool) error {
	if pact != "" {
		st, err := repogen.Write(pact, cfg, repogen.Options{LogOnly: !files})
		if err != nil {
			return err
		}
		report(st.Stats)
		if files {
			fmt.Fprintf(os.Stderr, "pactgen: STATE.yml %d bytes, %d task files\n", st.StateBytes, st.TaskFiles)
		}
		return nil
	}
	var w io.Writer = os.Stdout
	var f *os.File
	if out != "-" {
		var err error
		if f, err = os.Create(out); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	st, err := loggen.Write(w, cfg)
	if err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
	}
	report(st)
	return nil
}

func report(st loggen.Stats) {
	avg := 0.0
	if st.Lines > 0 {
		avg = float64(st.Bytes) / float64(st.Lines)
	}
	fmt.Fprintf(os.Stderr, "pactgen: %d lines, %d bytes (%.0f B/line), %d tasks in %d features (%d merged), %d defects, %d swaps\n",
		st.Lines, st.Bytes, avg, st.Tasks, st.Features, st.Merged, st.Defects, st.Swapped)
}
