package jsonscan

import "testing"

// BenchmarkDocument scans typical event lines, as the log decoder does for
// every line: what the duplicate-name bookkeeping adds shows here first.
func BenchmarkDocument(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"event_id":"0123456789abcdef0123456789abcdef","ts":"2026-06-09T10:00:01.5Z","agent_id":"w","role":"worker","event_type":"checkpoint","task_id":"T1","feature":"F","payload":{"evidence":"go test ./... passes"}}`),
		[]byte(`{"event_id":"0123456789abcdef0123456789abcdee","ts":"2026-06-09T10:00:02Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T2","feature":"F","payload":{"owner":"w","reviewer":"rev","branch":"feat/x","spec":".pact/tasks/T2.md"}}`),
		[]byte(`{"event_id":"0123456789abcdef0123456789abcded","ts":"2026-06-09T10:00:03Z","agent_id":"rev","role":"reviewer","event_type":"accept","task_id":"T1","feature":"F","payload":{"commit":"c0ffee","github":{"review_id":2087654321,"url":"https://x/y","login":"octocat","head_sha":"abc"}}}`),
	}
	var s Scanner
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, l := range lines {
			s.Reset(l)
			if _, ok := s.Document(func(key []byte, i, depth int) int { return s.Value(i, depth) }); !ok {
				b.Fatal("not JSON")
			}
		}
	}
}
