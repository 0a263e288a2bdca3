package errs

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"s3://AKIAEXAMPLE@bucket/t", "s3://[REDACTED]@bucket/t"},
		{"s3://AKIAEXAMPLE:wJalrXUtn@bucket/t", "s3://[REDACTED]@bucket/t"},
		// a secret holding '/' leaves an authority with a broken port
		{"s3://AKIAEXAMPLE:wJalr/XUtn+Y@bucket/t", "s3://[REDACTED]@bucket/t"},
		{"gs://ya29.token@bucket/t", "gs://[REDACTED]@bucket/t"},
		{"file://user:pw@localhost/tmp/t", "file://[REDACTED]@localhost/tmp/t"},
		// an Azure container is kept, a key pasted in its place is not
		{"abfss://data@acct.dfs.core.windows.net/t", "abfss://data@acct.dfs.core.windows.net/t"},
		{"abfss://Eby8vdM02xNOcq+FlqUw==@acct.dfs.core.windows.net/t", "abfss://[REDACTED]@acct.dfs.core.windows.net/t"},
		{"az://data:pw@acct.blob.core.windows.net/t", "az://[REDACTED]@acct.blob.core.windows.net/t"},
		// secret query parameters, whatever their case; others stay
		{"https://acct.blob.core.windows.net/c?sv=2022-11-02&sp=rw&sig=abc%2Fdef%3D#x", "https://acct.blob.core.windows.net/c?sv=2022-11-02&sp=rw&sig=[REDACTED]#x"},
		{"https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=f00&X-Amz-Expires=60", "https://b.s3.amazonaws.com/k?X-Amz-Credential=[REDACTED]&X-Amz-Signature=[REDACTED]&X-Amz-Expires=60"},
		{"http://h/p?access_token=t0k&x=1&pageToken=", "http://h/p?access_token=[REDACTED]&x=1&pageToken="},
		// no credentials: unchanged
		{"s3://bucket/t@v1/x", "s3://bucket/t@v1/x"},
		{"http://127.0.0.1:9000/bucket", "http://127.0.0.1:9000/bucket"},
		{"/tmp/t@x", "/tmp/t@x"},
		// in text, quoted or not, several at once
		{`invalid table URI "s3://AKIA:s3cr3t@b/t": parse error; see s3://k@b2 and gs://b3/x`, `invalid table URI "s3://[REDACTED]@b/t": parse error; see s3://[REDACTED]@b2 and gs://b3/x`},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestErrorRedacts: whatever the constructor or the cause, an Error's text
// and fields show no URL credential.
func TestErrorRedacts(t *testing.T) {
	secret := "wJalrXUtnFEMI" // a variable: the malformed URL below is on purpose
	raw := "s3://AKIAEXAMPLE:" + secret + "@bucket/t"
	_, perr := url.Parse("s3://AKIAEXAMPLE:" + secret + "/x@bucket/t") // url.Error quotes its input
	for _, e := range []*Error{
		New(InvalidArgument, raw, "opening %s", raw),
		Wrap(Internal, raw, errors.New("GET "+raw+"?X-Amz-Signature="+secret), "reading %q", raw).(*Error),
		Wrap(InvalidArgument, "", perr, "parsing").(*Error),
		{Kind: Internal, Path: raw, Msg: raw, Err: fmt.Errorf("cause: %s", raw)}, // a literal, past the constructors
	} {
		text := e.Error()
		if strings.Contains(text, secret) || strings.Contains(text, "AKIAEXAMPLE") || !strings.Contains(text, Redacted) {
			t.Errorf("Error() = %q", text)
		}
		if e.Kind != Internal && (strings.Contains(e.Path, secret) || strings.Contains(e.Msg, secret) || strings.Contains(e.Path+e.Msg, "AKIAEXAMPLE")) {
			t.Errorf("fields Path %q Msg %q", e.Path, e.Msg)
		}
	}
}
