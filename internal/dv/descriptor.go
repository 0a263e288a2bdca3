package dv

import (
	"encoding/hex"
	"fmt"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// Descriptor storage types (PROTOCOL.md, "Deletion Vector Descriptor Schema").
const (
	StorageUUID     = "u" // file <prefix>/deletion_vector_<uuid>.bin under the table root
	StorageInline   = "i" // Z85-encoded bitmap in the log
	StorageAbsolute = "p" // absolute URI of the file
)

// uuidZ85Len is the length of a Z85-encoded 16-byte UUID, always the tail of
// a "u" descriptor's pathOrInlineDv; what precedes it is the prefix dir.
const uuidZ85Len = 20

// FileKey returns the store key of the file a descriptor points at, or ""
// for an inline DV. An absolute ("p") path is accepted only when it lies
// under the store's root; anything else is an errs.CorruptTable error.
func FileKey(st storage.Store, d *protocol.DeletionVector) (string, error) {
	if d == nil {
		return "", errs.New(errs.InvalidArgument, "", "no deletion vector descriptor")
	}
	switch d.StorageType {
	case StorageInline:
		return "", nil
	case StorageUUID:
		return uuidKey(d.PathOrInlineDv)
	case StorageAbsolute:
		if st == nil {
			return "", errs.New(errs.InvalidArgument, d.PathOrInlineDv, "no store to resolve an absolute deletion vector path against")
		}
		return absoluteKey(st.URL(), d.PathOrInlineDv)
	default:
		return "", errs.New(errs.UnsupportedTable, d.PathOrInlineDv,
			"deletion vector storage type %q is not one of u, i, p", d.StorageType)
	}
}

func uuidKey(s string) (string, error) {
	if len(s) < uuidZ85Len {
		return "", errs.New(errs.CorruptTable, s,
			"deletion vector path of %d characters is too short for a Z85 UUID (%d)", len(s), uuidZ85Len)
	}
	prefix, enc := s[:len(s)-uuidZ85Len], s[len(s)-uuidZ85Len:]
	raw, err := z85Decode(enc)
	if err == nil && len(raw) != 16 {
		err = fmt.Errorf("decodes to %d bytes, not 16", len(raw))
	}
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, s, err, "deletion vector UUID is not valid Z85")
	}
	name := "deletion_vector_" + formatUUID(raw) + ".bin"
	if prefix != "" {
		name = prefix + "/" + name
	}
	key, err := storage.CleanKey(name)
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, s, err, "deletion vector prefix leaves the table")
	}
	return key, nil
}

func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// absoluteKey maps an absolute ("p") descriptor path onto a key of the
// store rooted at root, by protocol.ObjectKey's rule.
func absoluteKey(root, p string) (string, error) {
	if !protocol.HasScheme(p) {
		return "", errs.New(errs.CorruptTable, p, "absolute deletion vector path has no URI scheme")
	}
	key, err := protocol.ObjectKey(root, p)
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, p, err, "deletion vector path is not a file of the table")
	}
	return key, nil
}

// InlineDescriptor returns an inline ("i") descriptor holding b, for small
// DVs that are cheaper in the log than in a file of their own.
func InlineDescriptor(b *Bitmap) (*protocol.DeletionVector, error) {
	if err := checkWritable(b); err != nil {
		return nil, err
	}
	data := Encode(b)
	return &protocol.DeletionVector{
		StorageType:    StorageInline,
		PathOrInlineDv: z85Encode(data),
		SizeInBytes:    int32(len(data)),
		Cardinality:    int64(b.Cardinality()),
	}, nil
}

// maxRow is the largest row position other engines can read: Delta's
// RoaringBitmapArray keys are signed 32-bit integers.
const maxRow = 1<<63 - 1

func checkWritable(b *Bitmap) error {
	if b != nil && b.rb != nil && !b.rb.IsEmpty() && b.rb.Maximum() > maxRow {
		return errs.New(errs.InvalidArgument, "", "deletion vector row %d is beyond the largest position Delta can store (%d)", b.rb.Maximum(), uint64(maxRow))
	}
	return nil
}

func fmtDescriptor(d *protocol.DeletionVector) string {
	off := "none"
	if d.Offset != nil {
		off = fmt.Sprint(*d.Offset)
	}
	return fmt.Sprintf("storageType %q, offset %s, sizeInBytes %d, cardinality %d", d.StorageType, off, d.SizeInBytes, d.Cardinality)
}
