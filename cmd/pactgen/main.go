// Command pactgen writes a large, deterministic Pact v1 log for benchmarks:
//
//	pactgen -n 1000000 -seed 1 -o log.jsonl
//	pactgen -n 1000000 -defects 0.001 -pact /tmp/bench   # /tmp/bench/.pact/{log.jsonl,PROJECT.md}
//
// The same flags always give the same bytes (see internal/loggen).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pact-action/pact-action/internal/loggen"
)

const projectMD = `# acme-widgets

<!-- pact:begin -->
protocol_version: 1
<!-- pact:end -->
`

func main() {
	var cfg loggen.Config
	flag.IntVar(&cfg.Lines, "n", 1_000_000, "number of lines (events, defects included)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed; the same seed gives the same log")
	flag.Float64Var(&cfg.Defects, "defects", 0, "fraction of lines that are defects a validator reports")
	flag.Float64Var(&cfg.Swaps, "swaps", 0.01, "fraction of lines swapped with the next one in the file (timestamps kept)")
	malformed := flag.Bool("malformed", true, "let defects include truncated lines (false: every line is JSON, for jq)")
	out := flag.String("o", "-", "output file, - for standard output")
	pact := flag.String("pact", "", "write DIR/.pact/log.jsonl and DIR/.pact/PROJECT.md instead of -o")
	flag.Parse()
	cfg.NoMalformed = !*malformed
	if flag.NArg() != 0 || cfg.Lines < 0 || cfg.Defects < 0 || cfg.Defects > 0.5 || cfg.Swaps < 0 || cfg.Swaps > 0.5 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(cfg, *out, *pact); err != nil {
		fmt.Fprintln(os.Stderr, "pactgen:", err)
		os.Exit(1)
	}
}

func run(cfg loggen.Config, out, pact string) error {
	var w io.Writer = os.Stdout
	if pact != "" {
		dir := filepath.Join(pact, ".pact")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "PROJECT.md"), []byte(projectMD), 0o644); err != nil {
			return err
		}
		out = filepath.Join(dir, "log.jsonl")
	}
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	st, err := loggen.Write(w, cfg)
	if err != nil {
		return err
	}
	if f, ok := w.(*os.File); ok && f != os.Stdout {
		if err := f.Close(); err != nil {
			return err
		}
	}
	avg := 0.0
	if st.Lines > 0 {
		avg = float64(st.Bytes) / float64(st.Lines)
	}
	fmt.Fprintf(os.Stderr, "pactgen: %d lines, %d bytes (%.0f B/line), %d tasks in %d features (%d merged), %d defects, %d swaps\n",
		st.Lines, st.Bytes, avg, st.Tasks, st.Features, st.Merged, st.Defects, st.Swapped)
	return nil
}
