package ghapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"time"
)

// Reading bodies, for the retrying transport (retry.go): each attempt
// under its own deadline, restarted by every part of the answer read
// (attemptBody); a read's answer cut off mid-way asked again and joined
// only to the same answer (resumableBody); a request's body replayed for
// every attempt; an error body peeked at, bounded, and put back.

// maxErrorBody bounds how much of an error body is read to classify it.
const maxErrorBody = 64 << 10

// try sends one attempt of req under its own deadline
// (RetryPolicy.AttemptTimeout): the deadline runs until GitHub answers,
// then again from each part of the body read, and ends when the body is
// closed. An attempt past it fails with a *TimeoutError.
func (t *retryTransport) try(req *http.Request, getBody func() (io.ReadCloser, error)) (*http.Response, error) {
	parent := req.Context()
	actx, cancel := context.WithCancelCause(parent)
	timeout := &TimeoutError{Method: req.Method, Path: req.URL.Path, After: t.policy.AttemptTimeout}
	timer := time.AfterFunc(timeout.After, func() { cancel(timeout) })
	r := req.Clone(actx)
	if getBody != nil {
		body, err := getBody()
		if err != nil {
			timer.Stop()
			cancel(nil)
			return nil, fmt.Errorf("replay request body: %w", err)
		}
		r.Body = body
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		timer.Stop()
		if parent.Err() == nil && errors.Is(context.Cause(actx), timeout) {
			err = timeout
		}
		cancel(nil)
		return nil, err
	}
	resp.Body = &attemptBody{rc: resp.Body, timer: timer, cancel: cancel, ctx: actx, parent: parent, timeout: timeout}
	return resp, nil
}

// attemptBody is the body of one attempt: every read that brings bytes
// restarts the attempt's deadline, and a read the deadline stopped fails
// with the *TimeoutError.
type attemptBody struct {
	rc      io.ReadCloser
	timer   *time.Timer
	cancel  context.CancelCauseFunc
	ctx     context.Context
	parent  context.Context
	timeout *TimeoutError
}

func (b *attemptBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.timeout.After)
	}
	if err != nil && err != io.EOF && b.parent.Err() == nil && errors.Is(context.Cause(b.ctx), b.timeout) {
		err = b.timeout
	}
	return n, err
}

func (b *attemptBody) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel(nil)
	return err
}

// resumableBody is the body of a read (isRead) that succeeded: when the
// body is cut off (the connection dropped, or the attempt's deadline
// passed between two parts), it asks again, within what is left of the
// request's attempts and time, and goes on where it was cut once the new
// answer's first bytes are the ones already read (a SHA-256 of them is
// kept, not the bytes). An answer that changed in between fails the read:
// the two halves of different answers are never joined.
type resumableBody struct {
	t       *retryTransport
	req     *http.Request
	getBody func() (io.ReadCloser, error)
	status  int
	cur     io.ReadCloser
	read    int64
	sum     hash.Hash
	attempt int
	start   time.Time
	waited  time.Duration
}

func (b *resumableBody) Read(p []byte) (int, error) {
	n, err := b.cur.Read(p)
	b.sum.Write(p[:n])
	b.read += int64(n)
	if err == nil || err == io.EOF {
		return n, err
	}
	if rerr := b.resume(err); rerr != nil {
		return n, rerr
	}
	return n, nil
}

func (b *resumableBody) Close() error { return b.cur.Close() }

// resume replaces the cut body by a new attempt's, positioned after the
// bytes already read; cause is why the body ended.
func (b *resumableBody) resume(cause error) error {
	t, ctx := b.t, b.req.Context()
	_ = b.cur.Close()
	b.cur = http.NoBody
	want := b.sum.Sum(nil)
	for {
		if ctx.Err() != nil {
			return cause
		}
		elapsed := max(t.now().Sub(b.start), b.waited)
		delay := t.backoff(b.attempt)
		reason := ""
		switch {
		case b.attempt >= t.maxAttempts(b.req):
			reason = fmt.Sprintf("max %d attempts", t.maxAttempts(b.req))
		case elapsed+delay > t.policy.MaxElapsed:
			reason = fmt.Sprintf("next wait would exceed the %s limit", t.policy.MaxElapsed)
		}
		if reason != "" {
			return &RetryError{Method: b.req.Method, Path: b.req.URL.Path, Attempts: b.attempt, Elapsed: elapsed,
				Reason: "the answer was cut off; " + reason, Err: cause}
		}
		t.logRetry(ctx, b.req, "github answer cut off, asking again", b.attempt, verdict{status: b.status}, delay, cause)
		if err := t.sleep(ctx, delay); err != nil {
			return cause
		}
		b.waited += delay
		b.attempt++
		resp, err := t.try(b.req, b.getBody)
		if err != nil {
			cause = err
			continue
		}
		if resp.StatusCode != b.status {
			drain(resp.Body)
			cause = fmt.Errorf("asked again after the answer was cut off, GitHub answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
			continue
		}
		h := sha256.New()
		if _, err := io.CopyN(h, resp.Body, b.read); err != nil {
			_ = resp.Body.Close()
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // shorter than what was read
			}
			cause = err
			continue
		}
		if !bytes.Equal(h.Sum(nil), want) {
			drain(resp.Body)
			return fmt.Errorf("%s %s: the answer was cut off, and asked again it was a different answer: %w", b.req.Method, b.req.URL.Path, cause)
		}
		b.cur = resp.Body
		return nil
	}
}

// replayableBody returns a function producing a fresh copy of the request
// body, buffering the body when the request has no GetBody. It returns nil
// for requests without a body.
func replayableBody(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		// The original body is never sent; every attempt uses a copy.
		_ = req.Body.Close()
		return req.GetBody, nil
	}
	data, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("buffer request body: %w", err)
	}
	return func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, nil
}

func drain(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxErrorBody))
	_ = body.Close()
}

// peekMessage reads (a bounded prefix of) the body, puts it back for the
// caller, and returns the "message" of a GitHub error body.
func peekMessage(resp *http.Response) string {
	return errorMessage(peekBody(resp))
}

// peekBody reads a bounded prefix of the body and puts it back for the
// caller.
func peekBody(resp *http.Response) []byte {
	if resp.Body == nil {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
	return data
}
