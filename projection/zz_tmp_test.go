package projection

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkZZDecode(b *testing.B) {
	data, _ := os.ReadFile("../testdata/large/log-10000-seed1.jsonl")
	lines := bytes.Split(data, []byte("\n"))[1:5001]
	var d decoder
	d.lean = true
	var ev Event
	b.SetBytes(int64(len(data) / 2))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.resetSyms()
		for _, l := range lines {
			d.decode(l, &ev)
		}
	}
}
