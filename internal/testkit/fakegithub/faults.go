package fakegithub

import (
	"cmp"
	"io"
	"net/http"
	"slices"
	"strconv"
)

// serveFault serves the faults that are not a canned answer (Stall, Drop,
// Cut, Serve) and reports whether it did.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f *Fault, escaped string, entry Request) bool {
	switch {
	case f.Stall:
		if f.AfterApply {
			rp, _ := s.apply(r, escaped)
			entry.Status = rp.status
		}
		entry.Fault = true
		s.logRequest(entry)
		// net/http notices a closed connection (and cancels the
		// context) only once the request body has been read.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		return true
	case f.Drop:
		if f.AfterApply {
			rp, _ := s.apply(r, escaped)
			entry.Status = rp.status
		}
		entry.Fault = true
		s.logRequest(entry)
		// The server closes the connection of a handler that aborts,
		// without a byte of answer.
		panic(http.ErrAbortHandler)
	case f.Serve:
		rp, c := s.apply(r, escaped)
		entry.Status, entry.Fault = rp.status, true
		if c != nil && c.op != nil {
			entry.Operation = c.op.id
		}
		s.logRequest(entry)
		if rp.header == nil {
			rp.header = http.Header{}
		}
		for k, vs := range f.Header {
			rp.header[http.CanonicalHeaderKey(k)] = vs
		}
		s.write(w, r, rp, c)
		return true
	case f.Cut:
		rp, c := s.apply(r, escaped)
		entry.Status, entry.Fault = rp.status, true
		if c != nil && c.op != nil {
			entry.Operation = c.op.id
		}
		s.logRequest(entry)
		cw := &cutWriter{ResponseWriter: w}
		s.write(cw, r, rp, c)
		if cw.status != 0 { // an empty body: nothing to cut
			w.WriteHeader(cw.status)
		}
		return true
	}
	return false
}

// apply serves r as if no fault were injected, without answering.
func (s *Server) apply(r *http.Request, escaped string) (*reply, *call) {
	if isGraphQLPath(escaped) && !s.noGraphQL {
		rp, _ := s.serveGraphQL(r)
		return rp, nil
	}
	return s.serve(r, escaped)
}

// cutWriter sends half of the body it is given, then closes the
// connection: the client reads an answer cut off mid-way.
type cutWriter struct {
	http.ResponseWriter
	status int // written with the body's length
}

func (c *cutWriter) Write(p []byte) (int, error) {
	// Content-Length tells the client how much is missing, as GitHub's
	// answers do.
	c.Header().Set("Content-Length", strconv.Itoa(len(p)))
	c.ResponseWriter.WriteHeader(c.status)
	c.status = 0
	if len(p) > 1 {
		_, _ = c.ResponseWriter.Write(p[:len(p)/2])
	}
	if fl, ok := c.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
	panic(http.ErrAbortHandler)
}

func (c *cutWriter) WriteHeader(status int) { c.status = status }

// AllCheckRuns returns every check run of every commit, in the order they
// were created: what a test needs to assert that none was left in progress
// and none was created twice.
func (s *Server) AllCheckRuns() []CheckRun {
	s.mu.Lock()
	heads := map[string]bool{}
	for _, cr := range s.checkRuns {
		heads[cr.headSHA] = true
	}
	s.mu.Unlock()
	var out []CheckRun
	for h := range heads {
		out = append(out, s.CheckRuns(h)...)
	}
	slices.SortFunc(out, func(a, b CheckRun) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// getCheckRun answers GET /repos/{owner}/{repo}/check-runs/{check_run_id}:
// how a client learns whether a completion whose answer was lost landed.
func (s *Server) getCheckRun(c *call) *reply {
	id, _ := c.intParam("check_run_id")
	cr := s.checkRuns[id]
	if cr == nil || cr.repo != c.repo {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	if c.tok.NoChecks {
		return errorReply(http.StatusForbidden, "Resource not accessible by integration")
	}
	return jsonReply(http.StatusOK, s.checkRunJSON(cr))
}
