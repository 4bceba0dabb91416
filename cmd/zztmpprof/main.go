package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/pactdir"
	"github.com/pact-action/pact-action/projection"
)

func main() {
	pf, _ := os.Create("/tmp/cpu.prof")
	pprof.StartCPUProfile(pf)
	t0 := time.Now()
	f, _ := os.Open(os.Args[1] + "/.pact/log.jsonl")
	log, res, err := projection.ParseReplay(f)
	if err != nil {
		panic(err)
	}
	t1 := time.Now()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(os.Stderr, "parsereplay %v heap %d MB sys %d MB rejections %d tasks %d\n", t1.Sub(t0), ms.HeapAlloc>>20, ms.Sys>>20, len(res.Rejections), len(res.State.Tasks))
	_ = log
	d := pactdir.Dir{Root: os.Args[1], Name: ".pact"}
	in, err := d.Load()
	t2 := time.Now()
	fmt.Fprintf(os.Stderr, "load (again, with task files) %v\n", t2.Sub(t1))
	fs := checks.Run(in)
	t3 := time.Now()
	fmt.Fprintf(os.Stderr, "checks.Run %v (%d findings)\n", t3.Sub(t2), len(fs))
	checks.WriteText(io.Discard, fs)
	t4 := time.Now()
	fmt.Fprintf(os.Stderr, "WriteText %v\n", t4.Sub(t3))
	pprof.StopCPUProfile()
}
