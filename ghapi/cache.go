package ghapi

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"sync"
)

// defaultCacheBytes bounds what one client keeps of what it read: enough
// for the logs of a bot run and its judgement of what it wrote, not for
// every log a provenance search reads on a very large repository (those
// are read again).
const defaultCacheBytes = 128 << 20

// objectCache keeps, for the life of a client, what can never change
// because it is named by an object id: a file at a commit (or its absence),
// a blob by its id, and a commit's tree. Oldest entries go first when the
// byte bound is reached. Cached bytes are shared: callers must not modify
// what a read returns.
type objectCache struct {
	mu    sync.Mutex
	max   int
	size  int
	files map[fileAt]cachedFile
	blobs map[string][]byte
	trees map[string]string
	order []cacheKey
}

type fileAt struct{ commit, path string }

type cachedFile struct {
	data   []byte
	absent bool
}

// cacheKey names one entry for eviction: a fileAt, or a blob id.
type cacheKey struct {
	file fileAt
	blob string
}

func newObjectCache(maxBytes int) *objectCache {
	return &objectCache{max: maxBytes, files: map[fileAt]cachedFile{}, blobs: map[string][]byte{}, trees: map[string]string{}}
}

// isObjectID reports a full SHA-1 or SHA-256 object id: only those name
// something that cannot change (a branch or a short id can).
func isObjectID(ref string) bool {
	if len(ref) != 40 && len(ref) != 64 {
		return false
	}
	for _, c := range ref {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// blobID is the git object id of data as a blob, in the hash of oidLike
// (SHA-256 for a 64-character id, else SHA-1).
func blobID(data []byte, oidLike string) string {
	var h hash.Hash
	if len(oidLike) == 64 {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// keeps reports whether an entry of n bytes is kept: at most an eighth of
// the bound. A judgement holds what it reads for as long as it needs it;
// a log of tens of MB held by the cache as well was a second copy for the
// rest of the run, and a log read as a stream would be held to be kept
// (docs/semantics.md §7), so a larger file is read again if asked again.
func (c *objectCache) keeps(n int) bool { return n <= c.max/8 }

// makeRoom evicts the oldest entries until n more bytes fit; false when n
// is more than an entry may be (keeps). Call with mu held.
func (c *objectCache) makeRoom(n int) bool {
	if !c.keeps(n) {
		return false
	}
	for c.size+n > c.max && len(c.order) > 0 {
		k := c.order[0]
		c.order = c.order[1:]
		if k.blob != "" {
			c.size -= len(c.blobs[k.blob])
			delete(c.blobs, k.blob)
		} else {
			c.size -= len(c.files[k.file].data)
			delete(c.files, k.file)
		}
	}
	return true
}

// putFile records path at commit: its bytes, or nil when it is absent.
func (c *objectCache) putFile(commit, path string, data []byte, absent bool) {
	if !isObjectID(commit) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := fileAt{commit, path}
	if _, ok := c.files[k]; ok || !c.makeRoom(len(data)) {
		return
	}
	c.files[k] = cachedFile{data: data, absent: absent}
	c.size += len(data)
	c.order = append(c.order, cacheKey{file: k})
}

func (c *objectCache) file(commit, path string) (cachedFile, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.files[fileAt{commit, path}]
	return f, ok
}

// putBlob records data under its object id (computed here, so an entry is
// always what its id names).
func (c *objectCache) putBlob(data []byte, oidLike string) string {
	oid := blobID(data, oidLike)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.blobs[oid]; ok || !c.makeRoom(len(data)) {
		return oid
	}
	c.blobs[oid] = data
	c.size += len(data)
	c.order = append(c.order, cacheKey{blob: oid})
	return oid
}

func (c *objectCache) blob(oid string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.blobs[oid]
	return b, ok
}

// putTree records a commit's root tree (a few bytes; not bounded).
func (c *objectCache) putTree(commit, tree string) {
	if !isObjectID(commit) || !isObjectID(tree) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trees[commit] = tree
}

func (c *objectCache) tree(commit string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.trees[commit]
	return t, ok
}
