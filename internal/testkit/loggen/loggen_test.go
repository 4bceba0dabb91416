package loggen_test

import (
	"bytes"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/projection"
)

func gen(t *testing.T, cfg loggen.Config) ([]byte, loggen.Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := loggen.Write(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != st.Bytes || bytes.Count(buf.Bytes(), []byte("\n")) != cfg.Lines || st.Lines != cfg.Lines {
		t.Fatalf("stats %+v for %d bytes, %d lines", st, buf.Len(), bytes.Count(buf.Bytes(), []byte("\n")))
	}
	return buf.Bytes(), st
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	cfg := loggen.Config{Lines: 5000, Seed: 42, Defects: 0.02, Swaps: 0.05}
	a, _ := gen(t, cfg)
	b, _ := gen(t, cfg)
	if !bytes.Equal(a, b) {
		t.Fatal("the same config gave different logs")
	}
	cfg.Seed = 43
	if c, _ := gen(t, cfg); bytes.Equal(a, c) {
		t.Fatal("another seed gave the same log")
	}
}

// TestValid: without defects the log replays without a single rejection,
// whatever the swaps; with defects each defect is exactly one finding.
func TestValid(t *testing.T) {
	t.Parallel()
	for _, cfg := range []loggen.Config{
		{Lines: 20000, Seed: 1, Swaps: 0.05},
		{Lines: 20000, Seed: 2, Defects: 0.03, Swaps: 0.02},
		{Lines: 20000, Seed: 3, Defects: 0.1, NoMalformed: true},
	} {
		data, st := gen(t, cfg)
		log, res := projection.ReadEvents(data)
		if res.Unsupported != nil || !res.State.Initialized {
			t.Fatalf("%+v: not a valid log", cfg)
		}
		// Past projection.MaxListed of a code, rejections are counted.
		findings := len(log.Malformed) + len(res.Rejections)
		for _, n := range log.MalformedOmitted {
			findings += n
		}
		for _, o := range res.Omitted {
			findings += o.Count
		}
		if findings != st.Defects {
			for i, r := range res.Rejections {
				if i < 20 {
					t.Logf("line %d: %s: %s", r.Line, r.Code, r.Message)
				}
			}
			t.Fatalf("%+v: %d findings (%d malformed), want one per defect: %d", cfg, findings, len(log.Malformed), st.Defects)
		}
		if cfg.NoMalformed && len(log.Malformed) != 0 {
			t.Fatalf("%+v: %d malformed lines", cfg, len(log.Malformed))
		}
		if cfg.Defects == 0 && (st.Tasks < cfg.Lines/8 || st.Merged < st.Features/2 || st.Swapped == 0) {
			t.Fatalf("%+v: an unrealistic log: %+v", cfg, st)
		}
		if avg := float64(st.Bytes) / float64(st.Lines); avg < 200 || avg > 300 {
			t.Fatalf("%+v: %.0f bytes a line", cfg, avg)
		}
	}
}
