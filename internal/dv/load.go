package dv

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// DV file framing (PROTOCOL.md, "Deletion Vector File Storage Format"): one
// version byte, then per DV a big-endian int32 size, the serialized bitmap
// and a big-endian CRC-32 (IEEE) of the bitmap. A descriptor's offset points
// at the size field.
const (
	fileFormatVersion = 1
	sizeFieldLen      = 4
	crcFieldLen       = 4
)

// Load reads and verifies the deletion vector a descriptor points at, from
// the table store st. The size field, checksum, magic number and cardinality
// must all agree with the descriptor; any mismatch, a missing or truncated
// file, is an errs.CorruptTable error naming the DV file.
func Load(ctx context.Context, st storage.Store, d *protocol.DeletionVector) (*Bitmap, error) {
	if d == nil {
		return nil, errs.New(errs.InvalidArgument, "", "no deletion vector descriptor")
	}
	if err := ctx.Err(); err != nil {
		return nil, errs.Wrap(errs.Canceled, "", err, "loading deletion vector")
	}
	name := "inline deletion vector"
	key, err := FileKey(st, d)
	if err != nil {
		return nil, err
	}
	if key != "" {
		name = key
	}
	if d.SizeInBytes < headerSize || d.Cardinality < 0 {
		return nil, errs.New(errs.CorruptTable, name, "deletion vector descriptor is impossible (%s)", fmtDescriptor(d))
	}
	var data []byte
	if key == "" {
		raw, err := z85Decode(d.PathOrInlineDv)
		if err != nil {
			return nil, errs.Wrap(errs.CorruptTable, name, err, "inline deletion vector is not valid Z85")
		}
		// Z85 pads to whole 4-byte blocks; sizeInBytes says how much is real.
		if len(raw) < int(d.SizeInBytes) || len(raw)-int(d.SizeInBytes) >= 4 {
			return nil, errs.New(errs.CorruptTable, name,
				"inline deletion vector decodes to %d bytes, descriptor says %d", len(raw), d.SizeInBytes)
		}
		data = raw[:d.SizeInBytes]
	} else if data, err = readFramed(ctx, st, key, d); err != nil {
		return nil, err
	}
	b, err := decode(data)
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, name, err, "invalid deletion vector bitmap")
	}
	if got := b.Cardinality(); got != uint64(d.Cardinality) {
		return nil, errs.New(errs.CorruptTable, name,
			"deletion vector holds %d rows, descriptor says cardinality %d", got, d.Cardinality)
	}
	return b, nil
}

// readFramed reads the bitmap bytes of one framed DV with a single ranged
// read, checking the version byte too when the DV is the first in its file.
func readFramed(ctx context.Context, st storage.Store, key string, d *protocol.DeletionVector) ([]byte, error) {
	offset := int64(1) // the first DV after the version byte, when the log omits it
	if d.Offset != nil {
		offset = int64(*d.Offset)
	}
	if offset < 1 {
		return nil, errs.New(errs.CorruptTable, key, "deletion vector offset %d is before the first DV (1)", offset)
	}
	r, err := st.Open(ctx, key)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return nil, &errs.Error{Kind: errs.NotFound, Path: key, Msg: "deletion vector file is missing", Err: err}
		}
		return nil, errs.Wrap(errs.Internal, key, err, "opening deletion vector file")
	}
	defer r.Close()

	start := offset
	if offset == 1 {
		start = 0
	}
	end := offset + sizeFieldLen + int64(d.SizeInBytes) + crcFieldLen
	if end > r.Size() {
		return nil, errs.New(errs.CorruptTable, key,
			"deletion vector file is truncated: %d bytes, the DV at offset %d needs %d", r.Size(), offset, end)
	}
	buf := make([]byte, end-start)
	if _, err := r.ReadAt(buf, start); err != nil {
		return nil, errs.Wrap(errs.Internal, key, err, "reading deletion vector at offset %d", offset)
	}
	if start == 0 && buf[0] != fileFormatVersion {
		return nil, errs.New(errs.CorruptTable, key, "deletion vector file format version %d, want %d", buf[0], fileFormatVersion)
	}
	buf = buf[offset-start:]
	if size := binary.BigEndian.Uint32(buf); size != uint32(d.SizeInBytes) {
		return nil, errs.New(errs.CorruptTable, key,
			"deletion vector at offset %d has size %d, descriptor says %d", offset, size, d.SizeInBytes)
	}
	data := buf[sizeFieldLen : sizeFieldLen+int(d.SizeInBytes)]
	want := binary.BigEndian.Uint32(buf[sizeFieldLen+int(d.SizeInBytes):])
	if got := crc32.ChecksumIEEE(data); got != want {
		return nil, errs.New(errs.CorruptTable, key,
			"deletion vector at offset %d fails its checksum: CRC-32 %08x, file says %08x", offset, got, want)
	}
	return data, nil
}
