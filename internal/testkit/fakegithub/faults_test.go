package fakegithub

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
)

// TestFaultsLoseAnswers: Drop closes the connection with no answer, Cut
// sends half an answer with the whole one's length, and both apply the
// request when asked to, as the check runs they leave show.
func TestFaultsLoseAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fault   Fault
		applied bool
		partial bool // some bytes of the answer arrive
	}{
		{name: "drop", fault: Fault{Drop: true}},
		{name: "drop after apply", fault: Fault{Drop: true, AfterApply: true}, applied: true},
		{name: "cut", fault: Fault{Cut: true}, applied: true, partial: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := New(t)
			head := s.CommitFiles("o", "r", "main", map[string]string{"README.md": "hi\n"}, "alice")
			f := tc.fault
			f.Method, f.Path = "POST", "/repos/o/r/check-runs"
			s.Inject(f)
			req, err := http.NewRequestWithContext(context.Background(), "POST", s.URL+"/repos/o/r/check-runs",
				bytes.NewReader([]byte(`{"name":"pact","head_sha":"`+head+`"}`)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+"t")
			resp, err := s.Client().Do(req)
			var body []byte
			if err == nil {
				body, err = io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if tc.partial && (resp.ContentLength <= int64(len(body)) || len(body) == 0) {
					t.Errorf("read %d of %d bytes, want a part", len(body), resp.ContentLength)
				}
			}
			if err == nil || tc.partial && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("error = %v (read %q), want the answer lost", err, body)
			}
			if runs := s.AllCheckRuns(); (len(runs) == 1) != tc.applied {
				t.Errorf("check runs = %+v, applied %v", runs, tc.applied)
			}
		})
	}
}
