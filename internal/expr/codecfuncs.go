package expr

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Conversions between texts, numbers and bytes of Delta's allowed
// generation expressions, as Spark 4 computes them with ANSI mode: conv
// (NumberConverter, an overflow failing), unhex, unbase64 (Java's MIME
// decoder), encode / decode in Spark's seven charsets (a character the
// charset cannot hold failing, as MALFORMED_CHARACTER_CODING), soundex.

// codecFuncs are the functions of this file (their arities are in
// functions).
var codecFuncs = map[string]bool{"conv": true, "unhex": true, "unbase64": true, "encode": true, "decode": true, "soundex": true}

// sparkCharsets are the charsets encode and decode take.
var sparkCharsets = map[string]bool{"iso-8859-1": true, "us-ascii": true, "utf-16": true, "utf-16be": true,
	"utf-16le": true, "utf-32": true, "utf-8": true}

// bindCodecFunc binds the functions of this file.
func (b *binder) bindCodecFunc(e *Call) (node, error) {
	args := make([]node, len(e.Args))
	var err error
	t := tString
	switch e.Name {
	case "conv":
		if args[0], err = b.stringOperand(e.Args[0]); err != nil {
			return nil, err
		}
		for i := 1; i < 3; i++ {
			if args[i], err = b.intOperand(e, e.Args[i]); err != nil {
				return nil, err
			}
		}
	case "unhex", "unbase64", "soundex":
		if args[0], err = b.stringOperand(e.Args[0]); err != nil {
			return nil, err
		}
		if e.Name != "soundex" {
			t = tBinary
		}
	case "encode", "decode":
		if e.Name == "encode" {
			args[0], err = b.stringOperand(e.Args[0])
			t = tBinary
		} else {
			args[0], err = b.bytesOperand(e, e.Args[0])
		}
		if err != nil {
			return nil, err
		}
		cs, err := b.constString(e, e.Args[1], "charset")
		if err != nil {
			return nil, err
		}
		if cs == nil {
			return &lit{v: nil, t: t, src: e}, nil
		}
		if !sparkCharsets[strings.ToLower(*cs)] {
			return nil, errAt(e.Args[1], "%s: the charset %q is not one of iso-8859-1, us-ascii, utf-16, utf-16be, utf-16le, utf-32, utf-8", e.Name, *cs)
		}
		args[1] = &lit{v: strings.ToLower(*cs), t: tString, src: e.Args[1]}
	}
	return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
}

// codecFunction evaluates the functions bindCodecFunc binds.
func (ev *evaluator) codecFunction(n *callN, args []value) (value, error) {
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		switch n.fn {
		case "conv":
			return conv(v[0].(string), int(v[1].(int32)), int(v[2].(int32)))
		case "unhex":
			return unhex(v[0].(string)), nil
		case "unbase64":
			return unbase64(v[0].(string))
		case "soundex":
			return soundex(v[0].(string)), nil
		case "encode":
			return encodeCharset(v[0].(string), v[1].(string))
		}
		var in []byte
		if s, ok := v[0].(string); ok {
			in = []byte(s)
		} else {
			in = v[0].([]byte)
		}
		return decodeCharset(in, v[1].(string))
	})
}

// conv is Spark's NumberConverter.convert of the trimmed text: the digits
// up to the first that is none in base from, read as an unsigned 64-bit
// number (an overflow fails, as with ANSI mode), written in base |to|,
// negative values as two's complement unless to is negative; NULL for a
// base outside 2..36 or an empty text.
func conv(s string, from, to int) (any, error) {
	text := s
	s = strings.Trim(s, " ")
	if from < 2 || from > 36 || abs(to) < 2 || abs(to) > 36 || s == "" {
		return nil, nil
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d := digitValue(s[i])
		if d < 0 || d >= from {
			break
		}
		hi, lo := bits.Mul64(v, uint64(from))
		sum, carry := bits.Add64(lo, uint64(d), 0)
		if hi != 0 || carry != 0 {
			return nil, errs.New(errs.InvalidArgument, "", "conv(%q, %d, %d): overflow in function conv()", text, from, to)
		}
		v = sum
	}
	sv := int64(v)
	if neg && to > 0 {
		if sv < 0 {
			sv = -1
		} else {
			sv = -sv
		}
	}
	if to < 0 && sv < 0 {
		sv = -sv
		neg = true
	}
	out := strings.ToUpper(formatUnsigned(uint64(sv), abs(to)))
	if neg && to < 0 {
		out = "-" + out
	}
	return out, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

func formatUnsigned(v uint64, base int) string {
	if v == 0 {
		return "0"
	}
	var b [64]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[v%uint64(base)]
		v /= uint64(base)
	}
	return string(b[i:])
}

// unhex is Spark's unhex: pairs of hex digits, an odd first digit alone;
// NULL when a character is no hex digit.
func unhex(s string) any {
	if len(s)%2 == 1 {
		s = "0" + s
	}
	out := make([]byte, len(s)/2)
	for i := range out {
		h, l := hexDigit(rune(s[2*i])), hexDigit(rune(s[2*i+1]))
		if h < 0 || l < 0 {
			return nil
		}
		out[i] = byte(h<<4 | l)
	}
	return out
}

// unbase64 is Java's MIME Base64 decoder, which Spark's unbase64 uses:
// characters outside the alphabet are skipped, the text ends at '=', and
// an ending Java refuses fails.
func unbase64(s string) (any, error) {
	var out []byte
	bitsAcc, shift := uint32(0), 18
	fail := func(why string) (any, error) {
		return nil, errs.New(errs.InvalidArgument, "", "unbase64(%q): %s", s, why)
	}
	rs := []rune(s)
	i := 0
	for i < len(rs) {
		c := rs[i]
		i++
		d := base64Value(c)
		if d == -2 { // '='
			if shift == 6 && (i == len(rs) || rs[i] != '=') || shift == 18 {
				return fail("Input byte array has wrong 4-byte ending unit")
			}
			if shift == 6 {
				i++
			}
			break
		}
		if d < 0 {
			continue
		}
		bitsAcc |= uint32(d) << shift
		shift -= 6
		if shift < 0 {
			out = append(out, byte(bitsAcc>>16), byte(bitsAcc>>8), byte(bitsAcc))
			bitsAcc, shift = 0, 18
		}
	}
	switch shift {
	case 6:
		out = append(out, byte(bitsAcc>>16))
	case 0:
		out = append(out, byte(bitsAcc>>16), byte(bitsAcc>>8))
	case 12:
		return fail("Last unit does not have enough valid bits")
	}
	for ; i < len(rs); i++ {
		if base64Value(rs[i]) >= 0 {
			return fail("Input byte array has incorrect ending byte")
		}
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// base64Value is c's value in the Base64 alphabet, -2 for '=', -1 for
// any other character (one of Latin-1's bytes, as Java reads the text).
func base64Value(c rune) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	case c == '=':
		return -2
	}
	return -1
}

// soundex is Spark's UTF8String.soundex: the first letter and three
// digits, or the text itself when it does not start with an ASCII
// letter; bytes that are no ASCII letter separate codes, H and W do not.
func soundex(s string) string {
	const mapping = "01230127022455012623017202"
	if s == "" {
		return ""
	}
	upper := func(b byte) (byte, bool) {
		if b >= 'a' && b <= 'z' {
			b -= 32
		}
		return b, b >= 'A' && b <= 'Z'
	}
	first, ok := upper(s[0])
	if !ok {
		return s
	}
	sx := []byte{first, '0', '0', '0'}
	k := 1
	last := mapping[first-'A']
	for i := 1; i < len(s) && k < 4; i++ {
		b, ok := upper(s[i])
		if !ok {
			last = '0'
			continue
		}
		code := mapping[b-'A']
		if code == '7' {
			continue
		}
		if code != '0' && code != last {
			sx[k] = code
			k++
		}
		last = code
	}
	return string(sx)
}

// encodeCharset is Spark's encode: s's bytes in charset cs (lower case);
// a character cs cannot hold fails, as Spark's MALFORMED_CHARACTER_CODING.
func encodeCharset(s, cs string) (any, error) {
	if cs == "utf-8" {
		return []byte(s), nil
	}
	out := []byte{}
	for _, r := range s {
		switch cs {
		case "us-ascii", "iso-8859-1":
			if r > 0x7f && cs == "us-ascii" || r > 0xff {
				return nil, errs.New(errs.InvalidArgument, "", "encode(%q, %q): %q is not in %s (MALFORMED_CHARACTER_CODING)", s, cs, r, cs)
			}
			out = append(out, byte(r))
		case "utf-32":
			out = binary.BigEndian.AppendUint32(out, uint32(r))
		default:
			for _, u := range utf16.Encode([]rune{r}) {
				if cs == "utf-16le" {
					out = binary.LittleEndian.AppendUint16(out, u)
				} else {
					out = binary.BigEndian.AppendUint16(out, u)
				}
			}
		}
	}
	if cs == "utf-16" && len(s) > 0 {
		out = append([]byte{0xfe, 0xff}, out...) // Java's UTF-16 writes a byte order mark
	}
	return out, nil
}

// decodeCharset is Spark's decode(bytes, charset): bytes that are no text
// in cs fail, as Spark's MALFORMED_CHARACTER_CODING.
func decodeCharset(b []byte, cs string) (any, error) {
	bad := func() (any, error) {
		return nil, errs.New(errs.InvalidArgument, "", "decode(X'%X', %q): the bytes are no %s text (MALFORMED_CHARACTER_CODING)", b, cs, cs)
	}
	var sb strings.Builder
	switch cs {
	case "utf-8":
		if !utf8.Valid(b) {
			return bad()
		}
		return string(b), nil
	case "us-ascii", "iso-8859-1":
		for _, c := range b {
			if c > 0x7f && cs == "us-ascii" {
				return bad()
			}
			sb.WriteRune(rune(c))
		}
		return sb.String(), nil
	case "utf-32":
		if len(b)%4 != 0 {
			return bad()
		}
		for i := 0; i < len(b); i += 4 {
			r := rune(binary.BigEndian.Uint32(b[i:]))
			if i == 0 && r == 0xfeff {
				continue // a byte order mark
			}
			if r > utf8.MaxRune || r >= 0xd800 && r <= 0xdfff || r < 0 {
				return bad()
			}
			sb.WriteRune(r)
		}
		return sb.String(), nil
	}
	order := binary.ByteOrder(binary.BigEndian)
	if cs == "utf-16le" {
		order = binary.LittleEndian
	}
	if cs == "utf-16" && len(b) >= 2 {
		switch {
		case b[0] == 0xfe && b[1] == 0xff:
			b = b[2:]
		case b[0] == 0xff && b[1] == 0xfe:
			order, b = binary.LittleEndian, b[2:]
		}
	}
	if len(b)%2 != 0 {
		return bad()
	}
	us := make([]uint16, len(b)/2)
	for i := range us {
		us[i] = order.Uint16(b[2*i:])
	}
	for i := 0; i < len(us); i++ {
		u := us[i]
		switch {
		case u >= 0xd800 && u < 0xdc00 && i+1 < len(us) && us[i+1] >= 0xdc00 && us[i+1] <= 0xdfff:
			sb.WriteRune(utf16.DecodeRune(rune(u), rune(us[i+1])))
			i++
		case u >= 0xd800 && u <= 0xdfff:
			return bad()
		default:
			sb.WriteRune(rune(u))
		}
	}
	return sb.String(), nil
}
