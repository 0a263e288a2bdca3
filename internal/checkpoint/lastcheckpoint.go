package checkpoint

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

// LastCheckpoint is the content of _delta_log/_last_checkpoint: a hint to
// the newest checkpoint, which readers must verify by listing.
type LastCheckpoint struct {
	Version       int64  `json:"version"`
	Size          int64  `json:"size"`
	Parts         *int   `json:"parts,omitempty"`
	SizeInBytes   int64  `json:"sizeInBytes,omitempty"`
	NumOfAddFiles int64  `json:"numOfAddFiles,omitempty"`
	Checksum      string `json:"checksum,omitempty"`
}

// EncodeLastCheckpoint renders lc as the _last_checkpoint file, with the
// checksum PROTOCOL.md defines (any Checksum already set is replaced).
func EncodeLastCheckpoint(lc LastCheckpoint) ([]byte, error) {
	lc.Checksum = ""
	b, err := json.Marshal(lc)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, protocol.LastCheckpointKey, err, "encoding _last_checkpoint")
	}
	sum, err := jsonChecksum(b)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, protocol.LastCheckpointKey, err, "computing the _last_checkpoint checksum")
	}
	lc.Checksum = sum
	b, err = json.Marshal(lc)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, protocol.LastCheckpointKey, err, "encoding _last_checkpoint")
	}
	return b, nil
}

// DecodeLastCheckpoint parses a _last_checkpoint file leniently: it accepts
// "parts": null, the non-standard "size_in_bytes", and ignores fields it does
// not know (checkpointSchema, v2Checkpoint, tags). When the file carries a
// checksum that does not match its content the file is corrupt (typically a
// torn write) and an errs.CorruptTable error is returned: the caller should
// then ignore the hint and find the newest checkpoint by listing.
func DecodeLastCheckpoint(data []byte) (LastCheckpoint, error) {
	var raw struct {
		Version       *json.Number `json:"version"`
		Size          *json.Number `json:"size"`
		Parts         *json.Number `json:"parts"`
		SizeInBytes   *json.Number `json:"sizeInBytes"`
		SizeInBytes2  *json.Number `json:"size_in_bytes"`
		NumOfAddFiles *json.Number `json:"numOfAddFiles"`
		Checksum      *string      `json:"checksum"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return LastCheckpoint{}, errs.Wrap(errs.CorruptTable, protocol.LastCheckpointKey, err, "not a valid _last_checkpoint JSON object")
	}
	if raw.Version == nil {
		return LastCheckpoint{}, errs.New(errs.CorruptTable, protocol.LastCheckpointKey, "no version field")
	}
	var lc LastCheckpoint
	var err error
	num := func(name string, n *json.Number) int64 {
		if n == nil || err != nil {
			return 0
		}
		v, e := strconv.ParseInt(n.String(), 10, 64)
		if e != nil || v < 0 {
			err = errs.New(errs.CorruptTable, protocol.LastCheckpointKey, "field %s is %q, not a non-negative integer", name, n.String())
		}
		return v
	}
	lc.Version = num("version", raw.Version)
	lc.Size = num("size", raw.Size)
	if raw.Parts != nil {
		p := int(num("parts", raw.Parts))
		lc.Parts = &p
	}
	lc.SizeInBytes = num("sizeInBytes", raw.SizeInBytes)
	if raw.SizeInBytes == nil {
		lc.SizeInBytes = num("size_in_bytes", raw.SizeInBytes2)
	}
	lc.NumOfAddFiles = num("numOfAddFiles", raw.NumOfAddFiles)
	if err != nil {
		return LastCheckpoint{}, err
	}
	if raw.Checksum != nil && *raw.Checksum != "" {
		lc.Checksum = *raw.Checksum
		sum, err := jsonChecksum(data)
		if err != nil {
			return LastCheckpoint{}, errs.Wrap(errs.CorruptTable, protocol.LastCheckpointKey, err, "computing the checksum")
		}
		if !strings.EqualFold(sum, lc.Checksum) {
			return LastCheckpoint{}, errs.New(errs.CorruptTable, protocol.LastCheckpointKey,
				"checksum %s does not match the content (computed %s)", lc.Checksum, sum)
		}
	}
	return lc, nil
}

// jsonChecksum is the MD5 (hex) of the canonical form of a JSON object, as
// PROTOCOL.md "JSON checksum" defines it; the top-level "checksum" key is
// left out.
func jsonChecksum(data []byte) (string, error) {
	c, err := canonicalJSON(data)
	if err != nil {
		return "", err
	}
	sum := md5.Sum([]byte(c))
	return hex.EncodeToString(sum[:]), nil
}

// canonicalJSON flattens a JSON object into sorted path=value pairs: names
// and strings quoted and percent-encoded, array positions bare, path
// segments joined by "+", pairs joined by ",". Empty objects and arrays
// contribute no pair.
func canonicalJSON(data []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return "", err
	}
	delete(top, "checksum")
	type pair struct{ path, value string }
	var pairs []pair
	var walk func(path string, v any)
	walk = func(path string, v any) {
		join := func(seg string) string {
			if path == "" {
				return seg
			}
			return path + "+" + seg
		}
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(join(`"`+urlEncode(k)+`"`), e)
			}
		case []any:
			for i, e := range x {
				walk(join(strconv.Itoa(i)), e)
			}
		case string:
			pairs = append(pairs, pair{path, `"` + urlEncode(x) + `"`})
		case json.Number:
			pairs = append(pairs, pair{path, x.String()})
		case bool:
			pairs = append(pairs, pair{path, strconv.FormatBool(x)})
		case nil:
			pairs = append(pairs, pair{path, "null"})
		}
	}
	walk("", top)
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].path < pairs[j].path })
	var sb strings.Builder
	for i, p := range pairs {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(p.path)
		sb.WriteByte('=')
		sb.WriteString(p.value)
	}
	return sb.String(), nil
}

// urlEncode percent-encodes every UTF-8 octet except A-Z a-z 0-9 - . _ ~,
// with uppercase hex digits.
func urlEncode(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
