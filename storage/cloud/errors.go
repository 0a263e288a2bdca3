package cloud

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

// errClass is what a backend error means to the store, whatever the cloud.
type errClass int

const (
	classOther       errClass = iota
	classNotFound             // the key does not exist
	classExists               // a create-if-absent condition failed: the key exists
	classConflict             // a concurrent conditional write is in flight (S3 409): retry
	classNoBucket             // the bucket or container does not exist
	classDenied               // credentials rejected, or not allowed to do this
	classUnreachable          // the endpoint cannot be reached
	classUnsupported          // the server does not implement the request
	classCanceled             // the caller's context ended
)

// statusClass is the class of an HTTP status that every backend's SDK
// error means alike; ok is false for the others.
func statusClass(status int) (c errClass, ok bool) {
	switch status {
	case http.StatusNotFound:
		return classNotFound, true
	case http.StatusPreconditionFailed:
		return classExists, true
	case http.StatusUnauthorized, http.StatusForbidden:
		return classDenied, true
	case http.StatusNotImplemented:
		return classUnsupported, true
	}
	return classOther, false
}

// netClass classifies the failures every HTTP client shares; backends call
// it for errors their service codes do not explain.
// A failure to connect wins over a context error in the same chain: a
// retry loop that ran out of time against a dead endpoint is reported as
// the dead endpoint.
func netClass(err error) errClass {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return classUnreachable
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return classCanceled
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return classUnreachable
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return classUnreachable
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return classUnreachable
	}
	return classOther
}

// redactor removes credential values from error text. Every error a store
// returns passes through it.
type redactor struct{ secrets []string }

func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	add := func(s string) {
		// Very short values would blank out ordinary text; real credentials
		// are far longer.
		if len(s) >= 6 {
			r.secrets = append(r.secrets, s)
		}
	}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		add(s)
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		// A SAS token is a query string that SDKs re-encode and reorder;
		// its signature is the part that must never show.
		if q, err := url.ParseQuery(strings.TrimPrefix(s, "?")); err == nil {
			for _, sig := range q["sig"] {
				add(sig)
				add(url.QueryEscape(sig))
			}
		}
		// A service-account key file: its private key, line by line.
		for line := range strings.SplitSeq(s, `\n`) {
			if len(line) >= 16 && !strings.Contains(line, "PRIVATE KEY") {
				add(line)
			}
		}
	}
	return r
}

func (r *redactor) scrub(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, errs.Redacted)
	}
	return s
}

// wrap returns err with credentials removed from its text. errors.Is still
// sees through it (sentinels carry no secrets), errors.As does not: the
// concrete SDK errors could print what was scrubbed here.
func (r *redactor) wrap(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: r.scrub(err.Error()), orig: err}
}

type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string { return e.msg }

func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }

// writeOps are the operations (as describeFailure names them) that create
// objects.
var writeOps = map[string]bool{"write": true, "conditional write": true, "conditional write probe": true}

// describeFailure turns a classified backend error into the one error type
// of the module, naming the object and never a credential.
func (s *store) describeFailure(op, key string, err error) error {
	if err == nil {
		return nil
	}
	var mine *errs.Error
	if errors.As(err, &mine) {
		return err
	}
	path := s.objectURL(key)
	cause := s.red.wrap(err)
	class := s.b.classify(err)
	if class == classNotFound && writeOps[op] {
		class = classNoBucket // a write cannot miss its object, only its bucket
	}
	switch class {
	case classNotFound:
		return storage.NotExistError(path, "")
	case classExists:
		return storage.ExistError(path)
	case classNoBucket:
		return &errs.Error{Kind: errs.InvalidArgument, Path: path,
			Msg: fmt.Sprintf("%s %q does not exist", s.info.bucketWord, s.info.bucket)}
	case classDenied:
		return &errs.Error{Kind: errs.InvalidArgument, Path: path,
			Msg: fmt.Sprintf("%s: access denied; check the credentials (%s) and their permissions on %s %q",
				op, s.info.credentialHint, s.info.bucketWord, s.info.bucket), Err: cause}
	case classUnreachable:
		return &errs.Error{Kind: errs.Internal, Path: path,
			Msg: fmt.Sprintf("%s: cannot reach %s", op, s.info.endpoint), Err: cause}
	case classCanceled:
		return &errs.Error{Kind: errs.Canceled, Path: path, Msg: op, Err: cause}
	case classUnsupported:
		return &errs.Error{Kind: errs.UnsupportedTable, Path: path,
			Msg: fmt.Sprintf("%s: %s does not support this request", op, s.info.endpoint), Err: cause}
	}
	return &errs.Error{Kind: errs.Internal, Path: path, Msg: op + " failed", Err: cause}
}

// at names the table in an option error that was raised before the store
// existed.
func at(url string, err error) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Path == "" {
		c := *e
		c.Path = url
		return &c
	}
	return err
}
