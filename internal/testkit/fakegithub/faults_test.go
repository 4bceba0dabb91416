package fakegithub

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
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

// TestAnswersDatedByTheFakesClock: every answer carries the fake's clock as
// its Date, as GitHub dates its answers by its own: served, canned (a
// fault), or served with headers added (Serve); a fault may name its own
// Date, or leave it out.
func TestAnswersDatedByTheFakesClock(t *testing.T) {
	t.Parallel()
	at := time.Date(2031, time.May, 4, 5, 6, 7, 0, time.UTC)
	s := New(t, WithClock(at))
	s.SetPermission("alice", Write)
	const path = "/repos/o/r/collaborators/alice/permission"
	s.CommitFiles("o", "r", "main", map[string]string{"README.md": "hi\n"}, "alice")
	now := s.Now().Format(http.TimeFormat)
	s.Inject(Fault{Method: "GET", Path: path, Status: 503})
	s.Inject(Fault{Method: "GET", Path: path, Serve: true, Header: http.Header{"X-Ratelimit-Remaining": {"0"}}})
	s.Inject(Fault{Method: "GET", Path: path, Status: 503, Header: http.Header{"Date": {"Mon, 02 Jan 2006 15:04:05 GMT"}}})
	s.Inject(Fault{Method: "GET", Path: path, Status: 503, Header: http.Header{"Date": nil}})
	for i, want := range []struct {
		status    int
		date      string
		remaining string
	}{
		{503, now, ""}, {200, now, "0"}, {503, "Mon, 02 Jan 2006 15:04:05 GMT", ""}, {503, "", ""}, {200, now, ""},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != want.status || resp.Header.Get("Date") != want.date || resp.Header.Get("X-Ratelimit-Remaining") != want.remaining {
			t.Errorf("answer %d: %d, Date %q, x-ratelimit-remaining %q; want %d, %q, %q", i+1, resp.StatusCode,
				resp.Header.Get("Date"), resp.Header.Get("X-Ratelimit-Remaining"), want.status, want.date, want.remaining)
		}
	}
}
