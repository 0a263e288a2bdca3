package datafile

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/deltalite-go/deltalite/schema"
)

// escapePathName escapes a partition column name or value for a directory
// name as Hive and Spark do: control characters (and NUL, which no file
// system takes) and "#%'*/:=?\{[]^ become %XX; everything else, non-ASCII
// included, stays.
func escapePathName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func needsEscape(c byte) bool {
	if c < 0x20 || c == 0x7f {
		return true
	}
	switch c {
	case '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', '{', '[', ']', '^':
		return true
	}
	return false
}

// maxSegment is the longest directory name written: file systems refuse
// names past 255 bytes, and a name here can grow threefold by escaping.
const maxSegment = 200

// partitionSegment is the directory name of one partition column's value;
// value is the log's text form, null when !ok.
func partitionSegment(name, value string, ok bool) string {
	v := schema.HiveDefaultPartition
	if ok {
		v = escapePathName(value)
	}
	seg := escapePathName(name) + "=" + v
	if len(seg) <= maxSegment {
		return seg
	}
	// Directory names are cosmetic (values come from the log), so a long
	// one is cut on a character boundary and told apart by a hash.
	sum := sha256.Sum256([]byte(name + "=" + value))
	suffix := "-" + hex.EncodeToString(sum[:8])
	cut := maxSegment - len(suffix)
	for cut > 0 && !cleanCut(seg, cut) {
		cut--
	}
	return seg[:cut] + suffix
}

// cleanCut reports whether seg can be cut before byte i without splitting
// a UTF-8 sequence or a %XX escape.
func cleanCut(seg string, i int) bool {
	if i < len(seg) && !utf8.RuneStart(seg[i]) {
		return false
	}
	return !(i >= 1 && seg[i-1] == '%') && !(i >= 2 && seg[i-2] == '%')
}

// randomPrefix is a directory of two random letters or digits, as Spark
// names partition directories under column mapping.
func randomPrefix() string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b [2]byte
	_, _ = rand.Read(b[:])
	return string([]byte{chars[int(b[0])%len(chars)], chars[int(b[1])%len(chars)]})
}

// newUUID returns a random (version 4) UUID in its text form.
func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
