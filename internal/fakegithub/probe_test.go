package fakegithub

import (
	"net/http"
	"strings"
	"testing"
)

func TestProbeViolation(t *testing.T) {
	var got []string
	s := New(t, WithViolationHandler(func(m string) { got = append(got, m) }))
	s.CommitFiles("o", "r", "main", map[string]string{"a": "b"}, "x")
	resp, err := http.Post(s.URL+"/repos/o/r/check-runs", "application/json", strings.NewReader(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(resp.Status)
	resp, _ = http.Get(s.URL + "/repos/o/r/pulls/abc")
	t.Log(resp.Status)
	for _, g := range got {
		t.Log(g)
	}
}
