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

// WriteOption adjusts Write.
type WriteOption func(*writeConfig)

type writeConfig struct {
	prefixLen int
}

// WithRandomPrefix puts the DV file in a directory named by n random
// alphanumeric characters, as tables with delta.randomizeFilePrefixes do to
// spread objects over an object store's key space. n is at most 16.
func WithRandomPrefix(n int) WriteOption {
	return func(c *writeConfig) { c.prefixLen = min(max(n, 0), 16) }
}

const prefixAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// Write stores b as a new DV file holding one DV, under a fresh random UUID
// name in the table root (or a random prefix dir), and returns its "u"
// descriptor. The file is created with PutIfAbsent, so it never replaces an
// existing one; until a commit references it, it is an orphan for vacuum.
func Write(ctx context.Context, st storage.Store, b *Bitmap, opts ...WriteOption) (*protocol.DeletionVector, error) {
	var cfg writeConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := checkWritable(b); err != nil {
		return nil, err
	}
	data := Encode(b)
	if len(data) > math.MaxInt32-sizeFieldLen-crcFieldLen-1 {
		return nil, errs.New(errs.InvalidArgument, "", "deletion vector of %d bytes exceeds the 2 GiB a descriptor can address", len(data))
	}
	file := make([]byte, 0, 1+sizeFieldLen+len(data)+crcFieldLen)
	file = append(file, fileFormatVersion)
	file = binary.BigEndian.AppendUint32(file, uint32(len(data)))
	file = append(file, data...)
	file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(data))

	var id [16]byte
	_, _ = rand.Read(id[:])   // crypto/rand.Read never fails
	id[6] = id[6]&0x0f | 0x40 // version 4
	id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant
	prefix := randomPrefix(cfg.prefixLen)
	d := &protocol.DeletionVector{
		StorageType:    StorageUUID,
		PathOrInlineDv: prefix + z85Encode(id[:]),
		Offset:         new(int32(1)),
		SizeInBytes:    int32(len(data)),
		Cardinality:    int64(b.Cardinality()),
	}
	key, err := uuidKey(d.PathOrInlineDv)
	if err != nil {
		return nil, err
	}
	if err := st.PutIfAbsent(ctx, key, file); err != nil {
		return nil, errs.Wrap(errs.Internal, key, err, "writing deletion vector file")
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
