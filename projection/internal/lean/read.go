package lean

import (
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/pact-action/pact-action/projection/internal/compact"
)

// Reading a log: one goroutine cuts the input into chunks of whole lines,
// workers decode them, and the caller's goroutine takes the results in file
// order and finds duplicate event ids; the events are applied once all are
// read (applying them as they come, through a reordering heap, was measured
// slower on two cores: it takes the time of a decoder).

// read cuts r into chunks, decodes them with workers goroutines, each with
// a decoder of newDecoder, and takes their results in file order.
func (lr *Reading) read(r io.Reader, newDecoder func(symBase uint32) Decoder, workers int) error {
	jobs := make(chan *chunkIn, workers)
	order := make(chan *chunkIn, 2*workers+2)
	free := make(chan *chunkIn, 2*workers+4)
	outs := make(chan *chunkOut, 2*workers+4)
	lr.names = make([]compact.BlockList[string], workers)
	var done sync.WaitGroup
	overflow := make([]bool, workers)
	for w := 0; w < workers; w++ {
		done.Add(1)
		go func() {
			defer done.Done()
			d := newDecoder(uint32(w) << symWorkerShift)
			m := d.Lean()
			for in := range jobs {
				var out *chunkOut
				select {
				case out = <-outs:
				default:
					out = &chunkOut{}
				}
				out.worker = w
				decodeChunk(d, m, in, out)
				overflow[w] = overflow[w] || m.Names.Len() > symIndexMask
				in.out <- out
			}
			// Only the names are needed from here on.
			m.Names.Release()
		}()
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		readErr = cutChunks(r, lr.chunk, free, func(in *chunkIn) {
			order <- in
			jobs <- in
		})
	}()
	for in := range order {
		out := <-in.out
		lr.take(out)
		in.data = in.data[:0]
		select {
		case free <- in:
		default:
		}
		out.reset()
		select {
		case outs <- out:
		default:
		}
	}
	done.Wait()
	if len(lr.lookup) > 0 {
		lr.FirstLines = make(map[string]int, len(lr.lookup))
		for _, id := range lr.lookup {
			lr.FirstLines[id] = lr.firstLineOf(id)
		}
	}
	// Duplicates are all found: the id tables and line hashes are no
	// longer needed, and are let go before the digests of a snapshot are
	// made, so that the two are never held at once.
	lr.ids, lr.strIDs, lr.hashes = compact.IDTable{}, compact.IDTable{}, nil
	lr.recs.dropHashes()
	if lr.keepDigests {
		lr.Digests = lr.idDigests()
	}
	switch {
	case readErr != nil:
	case slices.Contains(overflow, true):
		readErr = errors.New("the log names more distinct seats, tasks, features and branches than this reader can hold")
	case lr.tooLarge:
		readErr = errors.New("the log has more lines than this reader can hold")
	}
	return readErr
}
