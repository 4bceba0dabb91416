package report

import (
	"bufio"
	"fmt"
	"io"
	"testing"

	"github.com/pact-action/pact-action/projection"
)

// BenchmarkTaskTableOneBigFeature: one feature of 20,000 assigned tasks on
// the branch, the table of the summary and of the terminal. A feature's
// status looks at each of its tasks; asked once per row, it would make
// these quadratic (docs/performance.md, Record).
//
//	go test ./report -run '^$' -bench TaskTableOneBigFeature
func BenchmarkTaskTableOneBigFeature(b *testing.B) {
	st := projection.NewState()
	st.Initialized = true
	f := &projection.Feature{ID: "F"}
	for i := range 20_000 {
		id := fmt.Sprint("T", i)
		st.Tasks[id] = &projection.Task{ID: id, Feature: "F", Owner: "dev", Reviewer: "rev", Branch: "b1", Status: projection.StatusAssigned}
		st.TaskOrder = append(st.TaskOrder, id)
		f.Tasks = append(f.Tasks, id)
	}
	st.Features["F"] = f
	st.FeatureOrder = []string{"F"}
	b.ResetTimer()
	for range b.N {
		_ = TaskTable(st, "b1", nil)
		w := bufio.NewWriter(io.Discard)
		writeTasks(w, st, "b1")
	}
}
