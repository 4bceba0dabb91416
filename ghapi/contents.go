package ghapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v60/github"
)

// mediaTypeRaw asks the contents API for the file bytes themselves. Unlike
// the default JSON answer (limited to 1 MB) it works up to 100 MB.
const mediaTypeRaw = "application/vnd.github.raw+json"

// ReadFile returns the content of the file at path in ref (a branch, tag or
// commit SHA; empty means the default branch). It uses the contents API
// with the raw media type; if GitHub refuses the file as too large it falls
// back to the Git Data API (tree walk, then blob). A missing file yields
// ErrNotFound; a directory yields an error.
func (c *Client) ReadFile(ctx context.Context, path, ref string) ([]byte, error) {
	return c.ReadFileLimit(ctx, path, ref, -1)
}

// ReadFileLimit is ReadFile for a file of at most limit bytes (negative:
// no limit but GitHub's): a larger one yields ErrTooLarge, and the client
// stops downloading it past the limit.
func (c *Client) ReadFileLimit(ctx context.Context, path, ref string, limit int64) ([]byte, error) {
	var data []byte
	err := c.readFile(ctx, path, ref, limit, false, func(r io.Reader) error {
		if h, ok := r.(*heldReader); ok {
			data = h.data // what the client holds, not a copy
			return nil
		}
		var err error
		if data, err = io.ReadAll(r); err == nil {
			c.keepFile(ref, strings.Trim(path, "/"), data) // the bytes returned, not a copy
		}
		return err
	})
	return data, err
}

// ReadFileStream is ReadFileLimit for a reader that takes the file as it
// comes: fn reads it from r, which fails with an error wrapping
// ErrTooLarge past limit bytes. A file this client holds is read from
// memory; one it downloads is held whole only as long as its cache keeps
// it (objectCache.keeps), so that a log of 100 MB costs what fn keeps of
// it, not the log itself beside what the caller holds already
// (docs/semantics.md §7). fn's error is returned as it is.
func (c *Client) ReadFileStream(ctx context.Context, path, ref string, limit int64, fn func(r io.Reader) error) error {
	return c.readFile(ctx, path, ref, limit, true, fn)
}

// readFile is ReadFileStream; tee says to copy what fn reads of a download
// for the cache (ReadFileLimit keeps the bytes it returns instead).
func (c *Client) readFile(ctx context.Context, path, ref string, limit int64, tee bool, fn func(r io.Reader) error) error {
	op := fmt.Sprintf("read %s at %q", path, ref)
	clean := strings.Trim(path, "/")
	if clean == "" || strings.Contains("/"+clean+"/", "/../") {
		return fmt.Errorf("%s: invalid path", op)
	}
	if isObjectID(ref) {
		if f, ok := c.cache.file(ref, clean); ok {
			switch {
			case f.absent:
				return fmt.Errorf("%s: %w", op, ErrNotFound)
			case limit >= 0 && int64(len(f.data)) > limit:
				return tooLarge(op, int64(len(f.data)), limit)
			}
			return fn(&heldReader{Reader: bytes.NewReader(f.data), data: f.data})
		}
	}
	body, data, err := c.openFile(ctx, op, clean, ref, limit)
	if err != nil {
		return err
	}
	if body == nil { // read through the blobs API, whole
		c.keepFile(ref, clean, data)
		return fn(&heldReader{Reader: bytes.NewReader(data), data: data})
	}
	defer body.Close()
	r := &fileReader{r: body, limit: limit, op: op, keep: tee && isObjectID(ref), keeps: c.cache.keeps}
	if err := fn(r); err != nil {
		return err
	}
	if r.keep && r.eof {
		data := r.kept.Bytes()
		if data == nil {
			data = []byte{}
		}
		c.keepFile(ref, clean, data)
	}
	return nil
}

// keepFile caches the bytes of path at ref, when ref is a commit id (a
// branch moves), as the file there and as its blob.
func (c *Client) keepFile(ref, clean string, data []byte) {
	if isObjectID(ref) {
		c.cache.putFile(ref, clean, data, false)
		c.cache.putBlob(data, ref)
	}
}

// tooLarge says a file of size bytes (-1: unknown, more than limit) is
// over limit.
func tooLarge(op string, size, limit int64) error {
	if size < 0 {
		return fmt.Errorf("%s: %w of %d bytes", op, ErrTooLarge, limit)
	}
	return fmt.Errorf("%s: %d bytes, %w of %d", op, size, ErrTooLarge, limit)
}

// limitedBuffer keeps what is written up to limit bytes (negative: all),
// and fails the write that would go past it. It has no ReadFrom (the
// buffer is a field, not embedded), so io.Copy goes through Write.
type limitedBuffer struct {
	buf   bytes.Buffer
	limit int64
}

var errOverLimit = errors.New("over the limit")

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.limit >= 0 && int64(b.buf.Len()+len(p)) > b.limit {
		return 0, errOverLimit
	}
	return b.buf.Write(p)
}

// heldReader reads bytes the client holds (data): ReadFileLimit takes
// them without a copy.
type heldReader struct {
	*bytes.Reader
	data []byte
}

// fileReader reads a file's body: an error wrapping ErrTooLarge past limit
// bytes (negative: none), and, while keep, a copy of what it read for the
// cache, as long as the cache keeps that much (keeps). eof says it read
// the whole file.
type fileReader struct {
	r     io.Reader
	limit int64
	n     int64
	op    string
	keep  bool
	keeps func(n int) bool
	kept  bytes.Buffer
	eof   bool
}

func (f *fileReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.n += int64(n)
	if f.limit >= 0 && f.n > f.limit {
		return 0, tooLarge(f.op, -1, f.limit)
	}
	if f.keep {
		if !f.keeps(f.kept.Len() + n) {
			f.keep, f.kept = false, bytes.Buffer{}
		} else {
			f.kept.Write(p[:n])
		}
	}
	f.eof = f.eof || err == io.EOF
	return n, err
}

// openFile asks the contents API for a file's bytes: the body to read, or,
// for a file the contents API refuses as too large, its bytes read through
// the blobs API (body nil).
func (c *Client) openFile(ctx context.Context, op, clean, ref string, limit int64) (io.ReadCloser, []byte, error) {
	u := c.repoPath() + "/contents/" + escapeSegments(clean)
	if ref != "" {
		u += "?ref=" + url.QueryEscape(ref)
	}
	req, err := c.gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Accept", mediaTypeRaw)
	resp, err := c.gh.BareDo(ctx, req)
	if err != nil {
		werr := wrapErr(op, err)
		if isTooLarge(werr) {
			c.logger.DebugContext(ctx, "contents api refused a large file, using the git data api", "path", clean, "ref", ref)
			data, berr := c.readBlobAt(ctx, clean, ref, limit)
			if berr != nil {
				return nil, nil, fmt.Errorf("%s: blob fallback: %w", op, berr)
			}
			return nil, data, nil
		}
		return nil, nil, werr
	}
	// For a directory (or a submodule) GitHub ignores the raw media type
	// and answers a JSON description.
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		_ = resp.Body.Close() // not read
		return nil, nil, fmt.Errorf("%s: not a regular file", op)
	}
	return resp.Body, nil, nil
}

// isTooLarge reports GitHub's refusal to serve a file through the contents
// API because of its size (403 with code "too_large").
func isTooLarge(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusForbidden {
		return false
	}
	for _, code := range ae.Codes {
		if code == "too_large" {
			return true
		}
	}
	return strings.Contains(strings.ToLower(ae.Message), "too large")
}

// readBlobAt finds the blob of path by walking trees from ref, then reads
// it through the blobs API (up to 100 MB) when it is at most limit
// bytes (negative: any size).
func (c *Client) readBlobAt(ctx context.Context, path, ref string, limit int64) ([]byte, error) {
	treeish := ref
	if treeish == "" {
		treeish = "HEAD"
	}
	parts := strings.Split(path, "/")
	tree, err := c.gitTree(ctx, treeish)
	if err != nil {
		return nil, err
	}
	for i, name := range parts {
		entry := findEntry(tree, name)
		if entry == nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(parts[:i+1], "/"), ErrNotFound)
		}
		last := i == len(parts)-1
		switch {
		case last && entry.GetType() == "blob" && limit >= 0 && int64(entry.GetSize()) > limit:
			return nil, tooLarge(path, int64(entry.GetSize()), limit)
		case last && entry.GetType() == "blob":
			return c.readBlob(ctx, entry.GetSHA(), int64(entry.GetSize()))
		case last:
			return nil, fmt.Errorf("%s: not a regular file (%s)", path, entry.GetType())
		case entry.GetType() != "tree":
			return nil, fmt.Errorf("%s: %w", strings.Join(parts[:i+2], "/"), ErrNotFound)
		}
		if tree, err = c.gitTree(ctx, entry.GetSHA()); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s: %w", path, ErrNotFound)
}

func findEntry(t *github.Tree, name string) *github.TreeEntry {
	for _, e := range t.Entries {
		if e.GetPath() == name {
			return e
		}
	}
	return nil
}

// readBlob reads a blob by its object id (from the cache when it holds it)
// and checks that the bytes are the ones the id names. size is the blob's
// size as its tree listed it (negative: not known). The blob comes with the
// raw media type into a buffer of that size: the default JSON answer is
// the blob in base64, which decoding holds three or four times over
// (docs/security.md "Exhausting the runner with .pact/").
func (c *Client) readBlob(ctx context.Context, sha string, size int64) ([]byte, error) {
	if data, ok := c.cache.blob(sha); ok {
		return data, nil
	}
	op := "get blob " + sha
	req, err := c.gh.NewRequest(http.MethodGet, c.repoPath()+"/git/blobs/"+url.PathEscape(sha), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Accept", mediaTypeRaw)
	buf := &limitedBuffer{limit: size}
	if size > 0 {
		buf.buf.Grow(int(size))
	}
	resp, err := c.gh.Do(ctx, req, buf)
	if errors.Is(err, errOverLimit) {
		return nil, fmt.Errorf("blob %s: GitHub sent more than the %d bytes its tree lists", sha, size)
	}
	if err != nil {
		return nil, wrapErr(op, err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		return nil, fmt.Errorf("blob %s: GitHub answered JSON where the raw blob was asked", sha)
	}
	data := buf.buf.Bytes()
	if data == nil {
		data = []byte{} // an empty blob is a file, never an absent one
	}
	if isObjectID(sha) && c.cache.putBlob(data, sha) != sha {
		return nil, fmt.Errorf("blob %s: GitHub sent bytes of another object", sha)
	}
	return data, nil
}

// escapeSegments path-escapes each segment of a slash-separated path.
func escapeSegments(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
