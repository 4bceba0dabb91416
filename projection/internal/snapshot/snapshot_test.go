package snapshot

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// encode is a snapshot of build whose payload write writes.
func encode(t *testing.T, build string, write func(e *Encoder)) string {
	t.Helper()
	var buf bytes.Buffer
	e, err := NewEncoder(&buf, build)
	if err != nil {
		t.Fatal(err)
	}
	write(e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestValuesRoundTrip: every value reads back as written, nil and empty
// lists apart, repeated words by number, and the payload is read to its
// end.
func TestValuesRoundTrip(t *testing.T) {
	t.Parallel()
	when := time.Date(2026, 6, 9, 10, 0, 0, 123, time.UTC)
	snap := encode(t, "b1", func(e *Encoder) {
		e.Uvarint(1 << 40)
		e.Varint(-7)
		e.U64(0xfedcba9876543210)
		e.Byte(5)
		e.Str("text")
		e.Word("w")
		e.Word("w")
		e.Bool(true)
		e.Time(when)
		e.Time(time.Time{})
		e.Strs(nil)
		e.Strs([]string{})
		e.Strs([]string{"a", "b"})
		e.Flush()
	})
	d, err := Open(snap, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Uvarint() != 1<<40 || d.Varint() != -7 || d.U64() != 0xfedcba9876543210 || d.Byte() != 5 || d.Str() != "text" ||
		d.Word() != "w" || d.Word() != "w" || !d.Bool() || !d.Time().Equal(when) || !d.Time().IsZero() {
		t.Fatalf("values read back otherwise (%v)", d.Err())
	}
	if l := d.Strs(); l != nil {
		t.Errorf("a nil list reads back as %q", l)
	}
	if l := d.Strs(); l == nil || len(l) != 0 {
		t.Errorf("an empty list reads back as %q", l)
	}
	if l := d.Strs(); strings.Join(l, ",") != "a,b" {
		t.Errorf("a list reads back as %q", l)
	}
	if d.Err() != nil || !d.Done() {
		t.Errorf("read to the end: %v, done %v", d.Err(), d.Done())
	}
}

// TestOpenRefuses: a snapshot of another build or format, cut, damaged or
// no snapshot at all is not opened.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	snap := encode(t, "b1", func(e *Encoder) { e.Str("payload") })
	flip := func(i int) string { b := []byte(snap); b[i] ^= 1; return string(b) }
	for name, c := range map[string]struct{ b, build, want string }{
		"another build": {snap, "b2", "written by another build"},
		"no snapshot":   {"PACTSNAQ" + snap[8:], "b1", "not a snapshot"},
		"too short":     {snap[:20], "b1", "not a snapshot"},
		"format":        {flip(len(magic)), "b1", "format 3, not 2"},
		"payload":       {flip(len(snap) - tailBytes - 1), "b1", "damaged"},
		"size":          {flip(len(snap) - tailBytes), "b1", "damaged"},
		"cut short":     {snap[:len(snap)-1], "b1", "damaged"},
	} {
		if _, err := Open(c.b, c.build); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestDecoderRefuses: what no encoder writes stops the decoder, which then
// reads zeros: an overlong number, a list longer than the bytes left, a
// word before its first use, an instant past year 9999, a flag of 2.
func TestDecoderRefuses(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		payload string
		read    func(d *Decoder)
	}{
		"overlong number":  {"\x80\x00", func(d *Decoder) { d.Uvarint() }},
		"long list":        {"\x05ab", func(d *Decoder) { d.Count(1) }},
		"long text":        {"\x05ab", func(d *Decoder) { d.Str() }},
		"word before use":  {"\x02", func(d *Decoder) { d.Word() }},
		"bad flag":         {"\x02", func(d *Decoder) { d.Bool() }},
		"far instant":      {payload(func(e *Encoder) { e.Bool(true); e.Varint(maxSec + 1); e.Uvarint(0) }), func(d *Decoder) { d.Time() }},
		"zero as instant":  {payload(func(e *Encoder) { e.Bool(true); e.Varint(minSec); e.Uvarint(0) }), func(d *Decoder) { d.Time() }},
		"number too large": {"\x80\x80\x80\x80\x10", func(d *Decoder) { d.Int() }},
		"cut u64":          {"1234567", func(d *Decoder) { d.U64() }},
	} {
		d := &Decoder{s: c.payload}
		c.read(d)
		if d.Err() == nil {
			t.Errorf("%s: read without an error", name)
		}
		if d.Uvarint() != 0 || d.Str() != "" {
			t.Errorf("%s: a stopped decoder reads on", name)
		}
	}
}

// payload is what write writes, without what surrounds it.
func payload(write func(e *Encoder)) string {
	e := &Encoder{dict: map[string]uint64{}}
	write(e)
	return string(e.b)
}
