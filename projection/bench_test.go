package projection_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/projection"
)

// The benchmarks run parse, replay and checks.Run (what `pactify validate`
// does besides reading the files of .pact/ and printing) over generated logs
// of 10k, 100k and 1M lines (internal/testkit/loggen, seed 1, 0.1% defects, 1% of
// lines swapped). Logs are generated once into ../testdata/large (ignored by
// git) and read into memory, so the disk is not measured.
//
//	go test ./projection/ -run '^$' -bench ParseReplayValidate -count 6 -timeout 60m | tee new.txt
//	benchstat -col /impl new.txt
//
// impl=lean is Read, without events (the CLI's path); impl=full is
// ReadEvents (the scanner, then the canonical replay); impl=reference is the
// encoding/json decoder the scanner replaced (decode_reference_test.go) then
// today's canonical replay (with the replay of before, whose joins scanned
// every task, 1M lines take more than 25 minutes). BenchmarkParse compares
// the decoders alone.

var benchSizes = []struct {
	name  string
	lines int
}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}}

var benchProject = []byte("<!-- pact:begin -->\nprotocol_version: 1\n<!-- pact:end -->\n")

func benchLog(b *testing.B, lines int) []byte {
	b.Helper()
	dir := filepath.Join("..", "testdata", "large")
	path := filepath.Join(dir, fmt.Sprintf("log-v%d-%d-seed1-defects0.001-swaps0.01.jsonl", loggen.Version, lines))
	if data, err := os.ReadFile(path); err == nil {
		return data
	}
	var buf bytes.Buffer
	if _, err := loggen.Write(&buf, loggen.Config{Lines: lines, Seed: 1, Defects: 0.001, Swaps: 0.01}); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		_ = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	return buf.Bytes()
}

type pipeline func(data []byte) (*projection.Scan, *projection.Result)

var pipelines = []struct {
	name string
	run  pipeline
}{
	{"lean", func(data []byte) (*projection.Scan, *projection.Result) {
		log, res, err := projection.Read(bytes.NewReader(data), projection.ReadOptions{})
		if err != nil {
			panic(err)
		}
		return &log.Scan, res
	}},
	{"full", func(data []byte) (*projection.Scan, *projection.Result) {
		log, res := projection.ReadEvents(data)
		return &log.Scan, res
	}},
	{"reference", func(data []byte) (*projection.Scan, *projection.Result) {
		log, err := projection.ParseReference(bytes.NewReader(data))
		if err != nil {
			panic(err)
		}
		return &log.Scan, projection.ReplayEvents(log)
	}},
}

func validate(log *projection.Scan, res *projection.Result) []checks.Finding {
	return checks.Run(checks.Input{Dir: ".pact", Scan: log, Replay: res, Project: benchProject, TaskFiles: map[string][]byte{}})
}

// BenchmarkParseReplayValidate reports, besides time and MB/s, the heap the
// pipeline needs over the log's bytes (which the benchmark holds): live-MB
// once the verdict is in (after a GC, the result still referenced), and
// peak-MB, the most heap objects during one run, garbage not yet collected
// included (sampled every millisecond). peak-MB compares the pipelines with
// each other; it overstates a process's peak, because the input held here
// raises the collector's heap target. The RSS of `pactify validate` is
// measured by scripts/bench.sh.
func BenchmarkParseReplayValidate(b *testing.B) {
	for _, size := range benchSizes {
		data := benchLog(b, size.lines)
		for _, p := range pipelines {
			b.Run(fmt.Sprintf("impl=%s/n=%s", p.name, size.name), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for i := 0; i < b.N; i++ {
					log, res := p.run(data)
					validate(log, res)
				}
				b.StopTimer()
				live, peak := heapUse(func() any {
					log, res := p.run(data)
					return []any{log, res, validate(log, res)}
				})
				b.ReportMetric(live, "live-MB")
				b.ReportMetric(peak, "peak-MB")
			})
		}
	}
}

// heapUse runs fn and returns the heap (in MiB, over what was in use
// before) that its result keeps alive, and the most that was in use while it
// ran.
func heapUse(fn func() any) (live, peak float64) {
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() float64 {
		metrics.Read(heap)
		return float64(heap[0].Value.Uint64()) / (1 << 20)
	}
	runtime.GC()
	base := read()
	stop, done := make(chan struct{}), make(chan float64)
	go func() {
		most := 0.0
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			most = max(most, read())
			select {
			case <-stop:
				done <- most
				return
			case <-tick.C:
			}
		}
	}()
	result := fn()
	close(stop)
	peak = max(<-done, read()) - base
	runtime.GC()
	live = read() - base
	runtime.KeepAlive(result)
	return live, peak
}

// BenchmarkParse isolates the decoder: parsing only, no replay.
func BenchmarkParse(b *testing.B) {
	for _, size := range benchSizes[:2] {
		data := benchLog(b, size.lines)
		for _, p := range []struct {
			name  string
			parse func([]byte) *projection.EventLog
		}{
			{"scanner", projection.ParseBytes},
			{"reference", func(d []byte) *projection.EventLog { l, _ := projection.ParseReference(bytes.NewReader(d)); return l }},
		} {
			b.Run(fmt.Sprintf("impl=%s/n=%s", p.name, size.name), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for i := 0; i < b.N; i++ {
					p.parse(data)
				}
			})
		}
	}
}
