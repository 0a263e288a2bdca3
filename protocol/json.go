package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// DecodeCommit parses a commit file: newline-delimited JSON, one action per
// line. Blank lines are skipped; a line that is not a JSON object is an
// error naming its line number. Unknown action kinds and fields are ignored.
func DecodeCommit(data []byte) ([]Action, error) {
	var out []Action
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		a, err := DecodeAction(l)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// DecodeAction parses one action object.
func DecodeAction(l []byte) (Action, error) {
	var a Action
	if len(l) == 0 || l[0] != '{' {
		return a, fmt.Errorf("not a JSON object")
	}
	if err := json.Unmarshal(l, &a); err != nil {
		return a, fmt.Errorf("invalid action JSON: %w", err)
	}
	if err := a.validate(); err != nil {
		return a, err
	}
	return a, nil
}

// validate checks the fields without which an action cannot be applied.
func (a *Action) validate() error {
	n := 0
	for _, set := range []bool{a.Protocol != nil, a.Metadata != nil, a.Add != nil, a.Remove != nil,
		a.Txn != nil, a.CommitInfo != nil, a.CDC != nil, a.DomainMetadata != nil,
		a.CheckpointMetadata != nil, a.Sidecar != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("one line holds %d actions", n)
	}
	switch {
	case a.Add != nil && a.Add.Path == "":
		return fmt.Errorf("add action without a path")
	case a.Remove != nil && a.Remove.Path == "":
		return fmt.Errorf("remove action without a path")
	case a.Add != nil && a.Add.Size < 0:
		return fmt.Errorf("add action %q with negative size", a.Add.Path)
	case a.Sidecar != nil && a.Sidecar.Path == "":
		return fmt.Errorf("sidecar action without a path")
	case a.Txn != nil && a.Txn.AppID == "":
		return fmt.Errorf("txn action without an appId")
	case a.DomainMetadata != nil && a.DomainMetadata.Domain == "":
		return fmt.Errorf("domainMetadata action without a domain")
	}
	return nil
}

// EncodeCommit renders actions as a commit file.
func EncodeCommit(actions []Action) ([]byte, error) {
	var buf bytes.Buffer
	for i := range actions {
		b, err := json.Marshal(&actions[i])
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}
