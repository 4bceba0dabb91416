package ghapi

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// readTree reads a tree request's stream p bytes at a time and decodes it
// as GitHub would.
func readTree(t *testing.T, body func() io.Reader, size int64, p int) (baseTree string, tree []map[string]string) {
	t.Helper()
	var out bytes.Buffer
	r, buf := body(), make([]byte, p)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil || n == 0 {
			t.Fatalf("read %d: %d, %v", p, n, err)
		}
	}
	if int64(out.Len()) != size {
		t.Errorf("read %d at a time: %d bytes, the request says %d", p, out.Len(), size)
	}
	var req struct {
		BaseTree string              `json:"base_tree"`
		Tree     []map[string]string `json:"tree"`
	}
	if err := json.Unmarshal(out.Bytes(), &req); err != nil {
		t.Fatalf("read %d at a time: %v\n%s", p, err, out.Bytes())
	}
	return req.BaseTree, req.Tree
}

// TestTreeRequest: the streamed body of a create-tree request is JSON
// that decodes to every file's content byte for byte, in parts or whole,
// whatever the size of the reads, and as long as it says.
func TestTreeRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		parts []string
	}{
		{"a log and its new line", []string{"{\"event_id\":\"a\",\"payload\":{\"evidence\":\"tests pass\"}}\n", "{\"event_id\":\"b\"}\r\n"}},
		{"every escape", []string{"\"\\/\b\f\n\r\t\x00\x01\x1f\x7f", "é€😀 <&> \u2028"}},
		{"a character split across parts", []string{"caf\xc3", "\xa9\n"}},
		{"empty parts", []string{"", "x", "", ""}},
		{"long runs", []string{strings.Repeat("a", 5000) + "\"" + strings.Repeat("b", 5000)}},
	} {
		var f File
		for _, p := range tc.parts {
			f = append(f, []byte(p))
		}
		want := strings.Join(tc.parts, "")
		body, size := treeRequest("base0", []treeEntry{{path: "d/\"q\".md", content: f}, {path: "bin", sha: "abc"}})
		for _, p := range []int{1, 2, 5, 7, 64, 4096, 1 << 20} {
			base, tree := readTree(t, body, size, p)
			if base != "base0" || len(tree) != 2 || tree[0]["path"] != "d/\"q\".md" || tree[0]["content"] != want || tree[0]["mode"] != "100644" ||
				tree[0]["type"] != "blob" || tree[1]["sha"] != "abc" || tree[1]["content"] != "" {
				t.Errorf("%s, read %d at a time: base %q, tree %q; want content %q", tc.name, p, base, tree, want)
			}
		}
	}
}
