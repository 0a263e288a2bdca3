package expr

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strings"
	"unicode"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// More deterministic functions of Delta's allowed generation expressions
// (AllowedUserProvidedExpressions): hashes and encodings of a string or
// binary (md5, sha1 / sha, sha2, crc32, base64, hex), string slicing
// (left, right, repeat, reverse, instr, ascii, initcap) and integer pmod,
// each as Spark 4 computes it.

// strFuncs are the functions of this file (their arities are in
// functions).
var strFuncs = map[string]bool{"md5": true, "sha1": true, "sha": true, "sha2": true, "crc32": true, "base64": true, "hex": true,
	"left": true, "right": true, "repeat": true, "reverse": true, "instr": true, "ascii": true, "initcap": true, "pmod": true}

// bytesOperand binds an argument a hash or encoding takes: a binary, or a
// string (its UTF-8 bytes, as Spark casts it).
func (b *binder) bytesOperand(fn *Call, e Expr) (node, error) {
	n, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	switch t := n.Type(); {
	case isType(t, schema.Binary), isString(t):
		return n, nil
	case isVoid(t):
		return b.coerce(n, tString, e)
	default:
		return nil, errAt(e, "%s needs a string or binary, not %s (%s)", fn.Name, e, typeName(t))
	}
}

// bindStrFunc binds the functions of this file.
func (b *binder) bindStrFunc(e *Call) (node, error) {
	args := make([]node, len(e.Args))
	var err error
	switch e.Name {
	case "md5", "sha1", "sha", "sha2", "crc32", "base64":
		if args[0], err = b.bytesOperand(e, e.Args[0]); err != nil {
			return nil, err
		}
		t := tString
		switch e.Name {
		case "sha2":
			if args[1], err = b.intOperand(e, e.Args[1]); err != nil {
				return nil, err
			}
		case "crc32":
			t = tLong
		}
		return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
	case "hex":
		x, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		if isIntegral(x.Type()) {
			if x, err = b.coerce(x, tLong, e.Args[0]); err != nil {
				return nil, err
			}
		} else if x, err = b.bytesOperand(e, e.Args[0]); err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: []node{x}, t: tString}, e)
	case "pmod":
		// Of the wider operand's type, as Spark types it; computed as longs.
		t := tInt
		for i, a := range e.Args {
			if args[i], err = b.bind(a); err != nil {
				return nil, err
			}
			at := args[i].Type()
			if !isIntegral(at) && !isVoid(at) {
				return nil, errAt(a, "pmod takes integers here, not %s (%s)", a, typeName(at))
			}
			if i == 0 && isIntegral(at) || integralRank(at) > integralRank(t) {
				t = at
			}
			if args[i], err = b.coerce(args[i], tLong, a); err != nil {
				return nil, err
			}
		}
		return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
	}
	t := tString
	for i, a := range e.Args {
		if i == 1 && e.Name != "instr" {
			args[i], err = b.intOperand(e, a)
		} else {
			args[i], err = b.stringOperand(a)
		}
		if err != nil {
			return nil, err
		}
	}
	if e.Name == "instr" || e.Name == "ascii" {
		t = tInt
	}
	return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
}

// strFunction evaluates the functions bindStrFunc binds.
func (ev *evaluator) strFunction(n *callN, args []value) (value, error) {
	bytesOf := func(v any) []byte {
		if s, ok := v.(string); ok {
			return []byte(s)
		}
		return v.([]byte)
	}
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		switch n.fn {
		case "md5":
			s := md5.Sum(bytesOf(v[0]))
			return hex.EncodeToString(s[:]), nil
		case "sha1", "sha":
			s := sha1.Sum(bytesOf(v[0]))
			return hex.EncodeToString(s[:]), nil
		case "sha2":
			return sha2(bytesOf(v[0]), v[1].(int32)), nil
		case "crc32":
			return int64(crc32.ChecksumIEEE(bytesOf(v[0]))), nil
		case "base64":
			return base64.StdEncoding.EncodeToString(bytesOf(v[0])), nil
		case "hex":
			if x, ok := v[0].(int64); ok {
				return strings.ToUpper(fmt.Sprintf("%x", uint64(x))), nil
			}
			return strings.ToUpper(hex.EncodeToString(bytesOf(v[0]))), nil
		case "pmod":
			a, m := v[0].(int64), v[1].(int64)
			if m == 0 {
				return nil, errs.New(errs.InvalidArgument, "", "pmod(%d, 0): division by zero", a)
			}
			r := a % m
			if r < 0 {
				r = (r + m) % m
			}
			switch integralRank(n.t) { // |r| < |m|, which fits the type
			case 1:
				return int8(r), nil
			case 2:
				return int16(r), nil
			case 3:
				return int32(r), nil
			}
			return r, nil
		case "instr":
			i := strings.Index(v[0].(string), v[1].(string))
			if i < 0 {
				return int32(0), nil
			}
			return int32(len([]rune(v[0].(string)[:i])) + 1), nil
		case "ascii":
			for _, r := range v[0].(string) {
				return int32(r), nil
			}
			return int32(0), nil
		case "initcap":
			rs := []rune(strings.ToLower(v[0].(string)))
			for i, r := range rs {
				if i == 0 || rs[i-1] == ' ' {
					rs[i] = unicode.ToTitle(r)
				}
			}
			return string(rs), nil
		case "reverse":
			rs := []rune(v[0].(string))
			for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
				rs[i], rs[j] = rs[j], rs[i]
			}
			return string(rs), nil
		}
		// left, right, repeat: a string and a count.
		s, k := v[0].(string), int(v[1].(int32))
		rs := []rune(s)
		switch {
		case n.fn == "repeat":
			return strings.Repeat(s, max(k, 0)), nil
		case k <= 0:
			return "", nil
		case k >= len(rs):
			return s, nil
		case n.fn == "left":
			return string(rs[:k]), nil
		}
		return string(rs[len(rs)-k:]), nil
	})
}

// sha2 is Spark's sha2: the hex digest of 224, 256 (also 0), 384 or 512
// bits, NULL for another length.
func sha2(b []byte, bits int32) any {
	switch bits {
	case 224:
		s := sha256.Sum224(b)
		return hex.EncodeToString(s[:])
	case 0, 256:
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	case 384:
		s := sha512.Sum384(b)
		return hex.EncodeToString(s[:])
	case 512:
		s := sha512.Sum512(b)
		return hex.EncodeToString(s[:])
	}
	return nil
}
