package cloud

import (
	"bytes"
	"io"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// uploadPlan sets how Put uploads large objects. An object of at most
// Threshold bytes goes up in one request; a larger one in parts of PartSize
// bytes, Concurrency of them in flight. A Put holds up to Threshold bytes
// plus PartSize × (Concurrency+1) in memory.
type uploadPlan struct {
	Threshold   int64
	PartSize    int64
	Concurrency int
}

// Defaults, overridden by the storage options MULTIPART_THRESHOLD_BYTES,
// MULTIPART_PART_SIZE_BYTES and MULTIPART_CONCURRENCY, or by the environment
// variables DELTALITE_MULTIPART_THRESHOLD_BYTES, ... of the same names.
const (
	DefaultMultipartThreshold   = 64 << 20
	DefaultMultipartPartSize    = 16 << 20
	DefaultMultipartConcurrency = 4
)

// minPartSize is the smallest part S3 accepts (all but the last part).
const minPartSize = 5 << 20

// maxPartSize keeps one part's buffer sane.
const maxPartSize = 4 << 30

func (c *config) multipart() (uploadPlan, error) {
	t, err := c.int64(optMultipartThresh, DefaultMultipartThreshold)
	if err != nil {
		return uploadPlan{}, err
	}
	p, err := c.int64(optMultipartPart, DefaultMultipartPartSize)
	if err != nil {
		return uploadPlan{}, err
	}
	n, err := c.int64(optMultipartConc, DefaultMultipartConcurrency)
	if err != nil {
		return uploadPlan{}, err
	}
	m := uploadPlan{Threshold: t, PartSize: p, Concurrency: int(n)}
	return m, m.validate()
}

func (m uploadPlan) validate() error {
	if m.PartSize < minPartSize || m.PartSize > maxPartSize {
		return errs.New(errs.InvalidArgument, "", "multipart part size %d is out of range: it must be between 5 MiB (the S3 minimum) and 4 GiB", m.PartSize)
	}
	if m.Threshold < 1 {
		return errs.New(errs.InvalidArgument, "", "multipart threshold %d must be positive", m.Threshold)
	}
	if m.Concurrency < 1 || m.Concurrency > 64 {
		return errs.New(errs.InvalidArgument, "", "multipart concurrency %d must be between 1 and 64", m.Concurrency)
	}
	return nil
}

// readHead reads up to limit+1 bytes, so the caller knows whether the
// stream is longer than limit. The buffer grows with what arrives: a small
// object never costs the whole threshold.
func readHead(r io.Reader, limit int64) (head []byte, more bool, err error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if n <= limit {
		return buf.Bytes(), false, nil
	}
	return buf.Bytes(), true, nil
}
