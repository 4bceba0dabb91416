package compact

// Forms of an event_id: the two common ones are kept in 16 bytes
// (ParseID), any other as a string.
const (
	IDOther = iota // kept as a string (or missing)
	IDHex          // 32 lower-case hex digits
	IDUUID         // 8-4-4-4-12 lower-case hex digits
)

// ParseID stores an event_id of a common form in dst and returns its form,
// IDOther (and dst spoilt) for any other.
func ParseID(dst *[16]byte, b []byte) uint8 {
	switch len(b) {
	case 32:
		if hexBytes(dst[:], b) {
			return IDHex
		}
	case 36:
		if b[8] == '-' && b[13] == '-' && b[18] == '-' && b[23] == '-' &&
			hexBytes(dst[0:4], b[0:8]) && hexBytes(dst[4:6], b[9:13]) && hexBytes(dst[6:8], b[14:18]) &&
			hexBytes(dst[8:10], b[19:23]) && hexBytes(dst[10:16], b[24:36]) {
			return IDUUID
		}
	}
	return IDOther
}

// hexBytes decodes lower-case hex only, so the text can be rebuilt exactly.
func hexBytes(dst, src []byte) bool {
	src = src[:2*len(dst)]
	var bad byte
	for i := range dst {
		hi, lo := lowerHexVal[src[2*i]], lowerHexVal[src[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo&0xF
	}
	return bad&0xF0 == 0
}

// lowerHexVal maps '0'-'9' and 'a'-'f' to their values, anything else to
// 0xFF.
var lowerHexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// FormatID rebuilds an event_id ParseID stored.
func FormatID(form uint8, id *[16]byte) string {
	const digits = "0123456789abcdef"
	var buf [36]byte
	n := 0
	for i, c := range id {
		if form == IDUUID && (i == 4 || i == 6 || i == 8 || i == 10) {
			buf[n] = '-'
			n++
		}
		buf[n], buf[n+1] = digits[c>>4], digits[c&0xF]
		n += 2
	}
	return string(buf[:n])
}
