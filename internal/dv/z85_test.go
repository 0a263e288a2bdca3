package dv

import (
	"bytes"
	"testing"
)

func TestZ85(t *testing.T) {
	// The example of the Z85 specification (ZeroMQ RFC 32).
	hello := []byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B}
	if got := z85Encode(hello); got != "HelloWorld" {
		t.Fatalf("encode = %q", got)
	}
	if got, err := z85Decode("HelloWorld"); err != nil || !bytes.Equal(got, hello) {
		t.Fatalf("decode = %x, %v", got, err)
	}
	// Lengths that are not whole blocks are zero-padded, as Spark does.
	for n := range 13 {
		data := bytes.Repeat([]byte{0xff, 0x01, 0x80}, 5)[:n]
		enc := z85Encode(data)
		if len(enc) != (n+3)/4*5 {
			t.Fatalf("%d bytes encode to %d characters", n, len(enc))
		}
		dec, err := z85Decode(enc)
		if err != nil || !bytes.Equal(dec[:n], data) || len(dec)-n >= 4 || !isZero(dec[n:]) {
			t.Fatalf("%d bytes: round trip %x, %v", n, dec, err)
		}
	}
	// delta-kernel-rs's short tail: '#' marks missing leading bytes.
	if got, err := z85Decode("HelloWorld##093"); err != nil || !bytes.Equal(got, append(hello, 0x03, 0x00)) {
		t.Fatalf("short tail = %x, %v", got, err)
	}
	for _, bad := range []string{"HelloWorl", "Hell~", "#####", "%nSc1", "HelloWorld#####", "##093Hello", "####0"} {
		// "%nSc1" is 2^32, one past the largest block; "####0" has 4 '#'.
		if got, err := z85Decode(bad); err == nil {
			t.Errorf("%q decoded to %x", bad, got)
		}
	}
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
