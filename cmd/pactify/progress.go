package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pact-action/pact-action/pactdir"
)

// Work that takes longer than progressDelay shows a progress line on a
// terminal, redrawn every progressEvery.
const (
	progressDelay = time.Second
	progressEvery = 250 * time.Millisecond
)

// progressLine draws a pactdir.Progress on one line of a terminal while a
// verb works, and erases it when the verb is done: nothing at all when the
// work ends within the delay or when the stream is not a terminal (a pipe,
// a file, CI), so output that is read by programs never holds it. It writes
// no colour, so NO_COLOR has nothing to turn off.
type progressLine struct {
	*pactdir.Progress
	once sync.Once
	quit chan struct{}
	done chan struct{}
}

// progress starts a progress line on the command's stderr. The caller must
// stop it before writing anything else to stderr.
func (c *cli) progress() *progressLine {
	if !isTerminal(c.stderr) {
		return startProgress(c.stderr, false, progressClock{})
	}
	return startProgress(c.stderr, true, wallClock(progressDelay, progressEvery))
}

// progressClock times a progress line: when it first appears, when it is
// redrawn, and the seconds it shows. Tests drive it by hand, so what they
// see does not depend on how fast the machine is.
type progressClock struct {
	appear <-chan time.Time
	redraw <-chan time.Time
	now    func() time.Time
	stop   func()
}

// wallClock shows the line after delay and redraws it every period.
func wallClock(delay, every time.Duration) progressClock {
	appear, redraw := time.NewTimer(delay), time.NewTicker(every)
	return progressClock{appear: appear.C, redraw: redraw.C, now: time.Now, stop: func() {
		appear.Stop()
		redraw.Stop()
	}}
}

func startProgress(out io.Writer, terminal bool, clk progressClock) *progressLine {
	pl := &progressLine{Progress: &pactdir.Progress{}, quit: make(chan struct{}), done: make(chan struct{})}
	if !terminal {
		close(pl.done)
		return pl
	}
	go pl.draw(out, clk)
	return pl
}

// stop erases the line, if one was drawn, and returns once it is gone. It
// may be called more than once.
func (pl *progressLine) stop() {
	pl.once.Do(func() { close(pl.quit) })
	<-pl.done
}

func (pl *progressLine) draw(out io.Writer, clk progressClock) {
	defer close(pl.done)
	if clk.stop != nil {
		defer clk.stop()
	}
	start := clk.now()
	select {
	case <-pl.quit:
		return
	case <-clk.appear:
	}
	shown := 0
	for {
		line := progressText(pl.Read())
		line += fmt.Sprintf(" (%ds)", int(clk.now().Sub(start).Seconds()))
		pad := max(0, shown-len(line))
		fmt.Fprintf(out, "\r%s%s", line, strings.Repeat(" ", pad))
		shown = len(line)
		select {
		case <-pl.quit:
			fmt.Fprintf(out, "\r%s\r", strings.Repeat(" ", shown))
			return
		case <-clk.redraw:
		}
	}
}

// progressText says what is being done and how far it has come.
func progressText(stage string, done, total int64, unit string) string {
	if stage == "" {
		stage = "working"
	}
	line := "pactify: " + stage
	switch {
	case total > 0 && unit == "B":
		line += fmt.Sprintf(" %d%% (%d of %d MB)", done*100/total, done>>20, total>>20)
	case total > 0:
		line += fmt.Sprintf(" %d%% (%d of %d %s)", done*100/total, done, total, unit)
	default:
		line += "…"
	}
	return line
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
