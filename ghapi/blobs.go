package ghapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// BlobRef names a blob to read: its id and size, as a tree listed them,
// and the path it was listed at (for messages).
type BlobRef struct {
	Path string
	OID  string
	Size int64
}

// graphQLTextCut is where GitHub is observed to cut Blob.text (see
// ReadTrees): a larger blob is read through the blobs API without asking
// GraphQL for a text it would cut.
const graphQLTextCut = 512_000

// maxBlobBatch bounds the text one GraphQL request of ReadBlobs asks for,
// so that an answer stays far below maxGraphQLAnswer and GitHub's time
// limit for one query. The requests of a read are thus at most its bytes
// over this bound, plus one: they do not grow with the number of blobs.
const maxBlobBatch = 4 << 20

// ReadBlobs reads blobs by id and returns their bytes by id. Those up to
// GitHub's cut of Blob.text are asked for in GraphQL requests of aliased
// object(oid:) look-ups, each carrying at most maxBlobBatch bytes; a blob
// GraphQL does not give whole (binary, larger, or text that is not its
// bytes) is read through the blobs API, as is every blob of a server
// without GraphQL. Blobs this client already read cost nothing. Every
// blob's bytes are checked against its id; one GitHub does not know wraps
// ErrNotFound.
func (c *Client) ReadBlobs(ctx context.Context, blobs []BlobRef) (map[string][]byte, error) {
	out := map[string][]byte{}
	asked := map[string]bool{}
	var batch, one []BlobRef // one: read through the blobs API
	batchBytes := int64(0)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		rest, err := c.readBlobBatch(ctx, batch, out)
		batch, batchBytes = nil, 0
		one = append(one, rest...)
		return err
	}
	for _, b := range blobs {
		if !isObjectID(b.OID) {
			return nil, fmt.Errorf("read %s: GitHub named its blob %q, which is not an object id", b.Path, b.OID)
		}
		if asked[b.OID] {
			continue
		}
		asked[b.OID] = true
		if data, ok := c.cache.blob(b.OID); ok {
			out[b.OID] = data
			continue
		}
		if b.Size > graphQLTextCut {
			one = append(one, b)
			continue
		}
		if batchBytes+b.Size > maxBlobBatch {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		batch = append(batch, b)
		batchBytes += b.Size
	}
	if err := flush(); err != nil {
		return nil, err
	}
	for _, b := range one {
		data, err := c.readBlob(ctx, b.OID, b.Size)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", b.Path, err)
		}
		out[b.OID] = data
	}
	return out, nil
}

// readBlobBatch asks GraphQL for the text of blobs in one request and
// fills out with those it gave whole; it returns the others. Without
// GraphQL it returns them all.
func (c *Client) readBlobBatch(ctx context.Context, blobs []BlobRef, out map[string][]byte) ([]BlobRef, error) {
	op := fmt.Sprintf("read %d file(s) by blob id", len(blobs))
	vars := map[string]any{"owner": c.owner, "name": c.repo}
	var q, body strings.Builder
	q.WriteString("query($owner: String!, $name: String!")
	for i, b := range blobs {
		v := fmt.Sprintf("b%d", i)
		vars[v] = b.OID
		fmt.Fprintf(&q, ", $%s: GitObjectID!", v)
		fmt.Fprintf(&body, " %s: object(oid: $%s) { ... on Blob { oid %s } }", v, v, blobObjectFields)
	}
	fmt.Fprintf(&q, ") { repository(owner: $owner, name: $name) {%s } }", body.String())
	var answer struct {
		Repository map[string]*blobAnswer `json:"repository"`
	}
	err := c.graphql(ctx, op, q.String(), vars, &answer)
	if errors.Is(err, errNoGraphQL) {
		c.logger.WarnContext(ctx, "the GraphQL endpoint does not answer; reading through the REST API, one call per file", "url", c.graphqlURL, "err", err)
		return blobs, nil
	}
	if err != nil {
		return nil, err
	}
	var rest []BlobRef
	for i, b := range blobs {
		a := answer.Repository[fmt.Sprintf("b%d", i)]
		if a == nil || a.OID == "" {
			return nil, fmt.Errorf("%s: %s: blob %s: %w", op, b.Path, b.OID, ErrNotFound)
		}
		if a.Text != nil && (a.IsTruncated == nil || !*a.IsTruncated) && (a.IsBinary == nil || !*a.IsBinary) {
			data := []byte(*a.Text)
			if c.cache.putBlob(data, b.OID) == b.OID {
				out[b.OID] = data
				continue
			}
		}
		rest = append(rest, b)
	}
	return rest, nil
}

// blobObjectFields select a Blob's text and what says whether it is whole.
const blobObjectFields = `byteSize isBinary isTruncated text`

// blobAnswer is a Blob as readBlobBatch selects it.
type blobAnswer struct {
	OID         string  `json:"oid"`
	ByteSize    *int64  `json:"byteSize"`
	IsBinary    *bool   `json:"isBinary"`
	IsTruncated *bool   `json:"isTruncated"`
	Text        *string `json:"text"`
}
