package ghapi

import (
	"encoding/json"
	"io"
	"unicode/utf8"
)

// File is the content of a file to write, in parts written one after the
// other (a log and the lines appended to it): CommitFiles sends them as
// they are and never joins them, so writing a line to a log of 100 MB
// holds the log once.
type File [][]byte

func (f File) size() int {
	n := 0
	for _, p := range f {
		n += len(p)
	}
	return n
}

// validUTF8 reports whether every part is valid UTF-8 on its own (a
// character split across two parts counts as invalid: the file then goes
// as a blob, which is always right).
func (f File) validUTF8() bool {
	for _, p := range f {
		if !utf8.Valid(p) {
			return false
		}
	}
	return true
}

// join is the file's bytes in one slice.
func (f File) join() []byte {
	out := make([]byte, 0, f.size())
	for _, p := range f {
		out = append(out, p...)
	}
	return out
}

// treeEntry is one path of a tree to create: a regular file's content
// inline, or an object already made (a blob, a link's blob or a
// submodule's commit: sha, with its mode and type; a regular blob when
// they are empty), or the path removed (delete: a null sha).
type treeEntry struct {
	path      string
	content   File
	sha       string
	mode, typ string
	delete    bool
}

// treeRequest is the JSON body of a create-tree request (POST
// /repos/{owner}/{repo}/git/trees) as a stream, and its length: a file's
// content is escaped into it as it is sent, where encoding the request
// whole would hold the file as a string and again as JSON, several times
// its size. body makes a fresh stream for each attempt.
func treeRequest(baseTree string, entries []treeEntry) (body func() io.Reader, size int64) {
	var segs []jsonSegment
	lit := func(s string) { segs = append(segs, jsonSegment{b: []byte(s)}) }
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) } // a string always marshals
	lit(`{"base_tree":` + str(baseTree) + `,"tree":[`)
	for i, e := range entries {
		if i > 0 {
			lit(",")
		}
		mode, typ := e.mode, e.typ
		if mode == "" {
			mode, typ = "100644", "blob"
		}
		lit(`{"path":` + str(e.path) + `,"mode":` + str(mode) + `,"type":` + str(typ) + `,`)
		switch {
		case e.delete:
			lit(`"sha":null}`)
			continue
		case e.sha != "":
			lit(`"sha":` + str(e.sha) + `}`)
			continue
		}
		lit(`"content":"`)
		for _, p := range e.content {
			segs = append(segs, jsonSegment{b: p, escape: true})
		}
		lit(`"}`)
	}
	lit(`]}`)
	for _, g := range segs {
		size += g.len()
	}
	return func() io.Reader { return &jsonStream{segs: segs} }, size
}

// jsonSegment is a piece of a JSON document: bytes as they are, or the
// bytes of a string's value, escaped as they are read.
type jsonSegment struct {
	b      []byte
	escape bool
}

func (g jsonSegment) len() int64 {
	n := int64(len(g.b))
	if g.escape {
		for _, c := range g.b {
			if e := escaped(c); e != "" {
				n += int64(len(e)) - 1
			}
		}
	}
	return n
}

// escaped is how a byte of valid UTF-8 text is written inside a JSON
// string when it must be escaped (RFC 8259, section 7: a quote, a
// backslash, a control character); "" for any other byte, written as it
// is.
func escaped(c byte) string {
	switch {
	case c == '"':
		return `\"`
	case c == '\\':
		return `\\`
	case c == '\n':
		return `\n`
	case c == '\r':
		return `\r`
	case c == '\t':
		return `\t`
	case c < 0x20:
		const hex = "0123456789abcdef"
		return `\u00` + string(hex[c>>4]) + string(hex[c&0xf])
	}
	return ""
}

// jsonStream reads the segments in order.
type jsonStream struct {
	segs []jsonSegment
	seg  int
	off  int
	// pending is what is left of an escape a read had no room for.
	pending string
}

func (s *jsonStream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if s.pending != "" {
			c := copy(p[n:], s.pending)
			s.pending = s.pending[c:]
			n += c
			continue
		}
		if s.seg == len(s.segs) {
			if n == 0 {
				return 0, io.EOF
			}
			break
		}
		g := s.segs[s.seg]
		rest := g.b[s.off:]
		if !g.escape {
			c := copy(p[n:], rest)
			n += c
			s.off += c
		} else {
			// The bytes that need no escape as they are, then one escape.
			i := 0
			for i < len(rest) && i < len(p)-n && escaped(rest[i]) == "" {
				i++
			}
			copy(p[n:], rest[:i])
			n += i
			s.off += i
			if i < len(rest) && n < len(p) {
				s.pending = escaped(rest[i])
				s.off++
			}
		}
		if s.off == len(g.b) {
			s.seg++
			s.off = 0
		}
	}
	return n, nil
}
