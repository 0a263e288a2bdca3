package dv

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"hash/crc32"
	"math"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// WriteOption adjusts Write and NewFileWriter.
type WriteOption func(*writeConfig)

type writeConfig struct {
	prefixLen  int
	targetSize int
}

// DefaultTargetSize is the size at which a FileWriter starts a new DV file:
// Spark's spark.databricks.delta.deletionVectors.packing.targetSize default.
const DefaultTargetSize = 2 << 20

// WithRandomPrefix puts each DV file in a directory named by n random
// alphanumeric characters, as tables with delta.randomizeFilePrefixes do to
// spread objects over an object store's key space. n is at most 16.
func WithRandomPrefix(n int) WriteOption {
	return func(c *writeConfig) { c.prefixLen = min(max(n, 0), 16) }
}

// WithTargetSize sets the size in bytes past which a FileWriter stores the
// file it holds and starts a new one (DefaultTargetSize when n <= 0). It
// bounds the writer's memory; a single larger DV still gets a file of its own.
func WithTargetSize(n int) WriteOption {
	return func(c *writeConfig) {
		if n > 0 {
			c.targetSize = n
		}
	}
}

const prefixAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// FileWriter packs the DVs of one commit into deletion_vector_<uuid>.bin
// files as Spark's DeletionVectorStore writer does: the version byte once,
// then per DV a big-endian int32 size, the serialized bitmap and its
// big-endian CRC-32; each descriptor ("u", its file's UUID and prefix,
// the offset of its size field, sizeInBytes, cardinality) points into the
// file. Spark starts a new file (a new bin) when the next DV would take the
// current one past its packing target; so does this writer, which holds at
// most one file in memory and stores each with PutIfAbsent, never replacing
// an object. A FileWriter is not safe for concurrent use.
//
// The descriptors Add returns point at files that exist only once Close
// returned without error. Files stored are orphans until a commit names
// them; Written lists them for the caller to delete when the commit does not
// happen.
type FileWriter struct {
	ctx     context.Context
	st      storage.Store
	cfg     writeConfig
	buf     []byte // the file being packed: version byte and framed DVs
	id      string // its pathOrInlineDv (prefix and Z85 UUID)
	key     string
	written []string
	closed  bool
}

// NewFileWriter returns a writer of DV files into the table store st.
// Nothing is stored before the first non-empty DV is added.
func NewFileWriter(ctx context.Context, st storage.Store, opts ...WriteOption) *FileWriter {
	cfg := writeConfig{targetSize: DefaultTargetSize}
	for _, o := range opts {
		o(&cfg)
	}
	return &FileWriter{ctx: ctx, st: st, cfg: cfg}
}

// Add packs b into the current file and returns its descriptor. An empty
// bitmap gets none (nil, nil): as in Spark, a file without deleted rows
// carries no DV.
func (w *FileWriter) Add(b *Bitmap) (*protocol.DeletionVector, error) {
	if w.closed {
		return nil, errs.New(errs.Internal, "", "deletion vector added to a closed file writer")
	}
	if err := checkWritable(b); err != nil {
		return nil, err
	}
	if b.IsEmpty() {
		return nil, nil
	}
	return w.add(b)
}

// add frames b, empty or not, into the current file.
func (w *FileWriter) add(b *Bitmap) (*protocol.DeletionVector, error) {
	data := Encode(b)
	framed := sizeFieldLen + len(data) + crcFieldLen
	if w.buf != nil && len(w.buf)+framed > w.cfg.targetSize {
		if err := w.flush(); err != nil {
			return nil, err
		}
	}
	// A descriptor's offset and size are int32s: a DV that cannot be
	// addressed even at the start of a file of its own is refused.
	if 1+framed > math.MaxInt32 {
		return nil, errs.New(errs.InvalidArgument, "", "deletion vector of %d bytes exceeds the 2 GiB a descriptor can address", len(data))
	}
	if w.buf != nil && len(w.buf)+framed > math.MaxInt32 {
		if err := w.flush(); err != nil {
			return nil, err
		}
	}
	if w.buf == nil {
		if err := w.start(); err != nil {
			return nil, err
		}
	}
	offset := int32(len(w.buf))
	w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(len(data)))
	w.buf = append(w.buf, data...)
	w.buf = binary.BigEndian.AppendUint32(w.buf, crc32.ChecksumIEEE(data))
	return &protocol.DeletionVector{
		StorageType:    StorageUUID,
		PathOrInlineDv: w.id,
		Offset:         &offset,
		SizeInBytes:    int32(len(data)),
		Cardinality:    int64(b.Cardinality()),
	}, nil
}

// start begins a new file under a fresh random UUID (and prefix).
func (w *FileWriter) start() error {
	var id [16]byte
	_, _ = rand.Read(id[:])   // crypto/rand.Read never fails
	id[6] = id[6]&0x0f | 0x40 // version 4
	id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant
	w.id = randomPrefix(w.cfg.prefixLen) + z85Encode(id[:])
	key, err := uuidKey(w.id)
	if err != nil {
		return err
	}
	w.key = key
	w.buf = append(make([]byte, 0, min(w.cfg.targetSize, 64<<10)), fileFormatVersion)
	return nil
}

// flush stores the current file, if it holds a DV.
func (w *FileWriter) flush() error {
	if w.buf == nil {
		return nil
	}
	buf, key := w.buf, w.key
	w.buf, w.key, w.id = nil, "", ""
	if err := w.st.PutIfAbsent(w.ctx, key, buf); err != nil {
		return errs.Wrap(errs.Internal, key, err, "writing deletion vector file")
	}
	w.written = append(w.written, key)
	return nil
}

// Close stores the last file. After Close, Add fails; Close again does
// nothing.
func (w *FileWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	return w.flush()
}

// Written returns the store keys of the DV files stored so far.
func (w *FileWriter) Written() []string { return append([]string(nil), w.written...) }

// Write stores b as a new DV file holding one DV, under a fresh random UUID
// name in the table root (or a random prefix dir), and returns its "u"
// descriptor. The file is created with PutIfAbsent, so it never replaces an
// existing one; until a commit references it, it is an orphan for vacuum.
// Unlike FileWriter.Add, an empty b gets a file and a descriptor too.
func Write(ctx context.Context, st storage.Store, b *Bitmap, opts ...WriteOption) (*protocol.DeletionVector, error) {
	if err := checkWritable(b); err != nil {
		return nil, err
	}
	w := NewFileWriter(ctx, st, opts...)
	d, err := w.add(b)
	if err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return d, nil
}

func randomPrefix(n int) string {
	if n == 0 {
		return ""
	}
	raw := make([]byte, n)
	_, _ = rand.Read(raw)
	for i, r := range raw {
		raw[i] = prefixAlphabet[int(r)%len(prefixAlphabet)]
	}
	return string(raw)
}
