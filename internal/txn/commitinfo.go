package txn

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

// EngineCommitInfoKeys are the commitInfo fields the transaction writes
// itself; Options.Metadata may not set them.
var EngineCommitInfoKeys = []string{
	"timestamp", "inCommitTimestamp", "operation", "operationParameters", "operationMetrics",
	"readVersion", "isolationLevel", "isBlindAppend", "engineInfo", "txnId",
}

func checkCallerMetadata(m map[string]any) error {
	for k := range m {
		if slices.Contains(EngineCommitInfoKeys, k) {
			return invalid("commit metadata key %q is written by the engine; choose another key (e.g. userMetadata)", k)
		}
	}
	if _, err := json.Marshal(m); err != nil {
		return errs.Wrap(errs.InvalidArgument, "", err, "commit metadata is not JSON-encodable")
	}
	if tags, ok := m["tags"]; ok {
		tm, err := callerTags(tags)
		if err != nil {
			return err
		}
		if _, ok := tm[protocol.RowTrackingPreservedTag]; ok {
			return invalid("commit metadata tag %q is written by the engine; choose another tag", protocol.RowTrackingPreservedTag)
		}
	}
	return nil
}

// callerTags reads the caller's commitInfo "tags", which Spark reads as a
// map<string,string>.
func callerTags(v any) (map[string]string, error) {
	out := map[string]string{}
	switch v := v.(type) {
	case map[string]string:
		maps.Copy(out, v)
	case map[string]any:
		for k, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, invalid("commit metadata tag %q is %T; tags are strings (commitInfo.tags is a map of strings)", k, x)
			}
			out[k] = s
		}
	default:
		return nil, invalid("commit metadata \"tags\" is %T; give a map of strings", v)
	}
	return out, nil
}

// stringMap renders values as Spark's map<string,string>: strings as they
// are, anything else as its JSON text.
func stringMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case string, json.RawMessage:
			out[k] = v
		case fmt.Stringer:
			out[k] = v.String()
		default:
			b, err := json.Marshal(v)
			if err != nil {
				out[k] = fmt.Sprint(v)
			} else {
				out[k] = string(b)
			}
		}
	}
	return out
}

// attempt is what differs between the tries of one commit.
type attempt struct {
	version   int64
	now       time.Time
	prevTime  *int64 // commit time of version-1 in ms, when known
	isolation IsolationLevel
	// highWaterMark is the row id high water mark of the newest commit
	// this attempt follows (rowids.go).
	highWaterMark int64
}

// commitActions renders the commit for one attempt: commitInfo first (the
// protocol requires it there when in-commit timestamps are on), then the
// caller's actions, with the metaData given the in-commit timestamp
// enablement properties when this commit turns them on.
func (t *Txn) commitActions(at attempt) []protocol.Action {
	now := at.now.UnixMilli()
	md := t.newMetadata()
	var ict *int64
	if ictEnabled(md) {
		v := now
		if at.prevTime != nil && *at.prevTime+1 > v {
			v = *at.prevTime + 1
		}
		ict = &v
	}
	raw := maps.Clone(t.opt.Metadata)
	if raw == nil {
		raw = map[string]any{}
	}
	params := stringMap(t.op.Parameters)
	if params == nil {
		params = map[string]any{}
	}
	raw["isolationLevel"] = string(at.isolation)
	raw["engineInfo"] = t.opt.EngineInfo
	raw["txnId"] = t.id
	if t.metrics != nil {
		raw["operationMetrics"] = stringMap(t.metrics)
	}
	var tags map[string]string
	tag := func(k string) {
		if tags == nil {
			tags = map[string]string{}
			if given, ok := raw["tags"]; ok {
				if tm, err := callerTags(given); err == nil { // checked at Commit
					tags = tm
				}
			}
		}
		tags[k] = "true"
	}
	if t.preservesRowTracking() {
		tag(protocol.RowTrackingPreservedTag)
	}
	if t.identityOnlyUpdate() {
		// As Spark tags it, so that its conflict checker lets this
		// commit pass its transactions that change no metaData.
		tag(IdentityCommitTag)
	}
	if tags != nil {
		raw["tags"] = tags
	}
	blind := t.isBlindAppend()
	ci := &protocol.CommitInfo{
		Timestamp:           &now,
		InCommitTimestamp:   ict,
		Operation:           t.op.Name,
		OperationParameters: params,
		IsBlindAppend:       &blind,
		Raw:                 raw,
	}
	if t.snap != nil {
		rv := t.snap.Version()
		ci.ReadVersion = &rv
	}
	out := make([]protocol.Action, 0, len(t.actions)+1)
	out = append(out, protocol.Action{CommitInfo: ci})
	for _, a := range t.actions {
		if a.Metadata != nil && ict != nil && t.enablesICT() {
			a = protocol.Action{Metadata: withICTEnablement(a.Metadata, at.version, *ict)}
		}
		out = append(out, a)
	}
	return withRowIDs(out, t.newProtocol(), md, at)
}

func ictEnabled(md *protocol.Metadata) bool {
	if md == nil {
		return false
	}
	b, _ := protocol.Properties(md.Configuration).Bool(protocol.PropEnableInCommitTimestamps, false)
	return b
}

// enablesICT reports whether this commit turns in-commit timestamps on for
// an existing table. A table created with them on needs no enablement
// properties: every commit has one.
func (t *Txn) enablesICT() bool {
	return t.snap != nil && !ictEnabled(t.snap.Metadata()) && ictEnabled(t.newMetadata())
}

// withICTEnablement records where in-commit timestamps start. The values
// depend on the version the commit lands at, so the transaction sets them
// (on every attempt), overriding anything the caller put there.
func withICTEnablement(md *protocol.Metadata, version, ict int64) *protocol.Metadata {
	c := *md
	c.Configuration = maps.Clone(md.Configuration)
	c.Configuration[protocol.PropICTEnablementVersion] = strconv.FormatInt(version, 10)
	c.Configuration[protocol.PropICTEnablementTimestamp] = strconv.FormatInt(ict, 10)
	return &c
}

// commitTimeOf is the commit time a commitInfo records, in ms: the
// in-commit timestamp, else the writer's timestamp.
func commitTimeOf(actions []protocol.Action) *int64 {
	for _, a := range actions {
		if ci := a.CommitInfo; ci != nil {
			if ci.InCommitTimestamp != nil {
				return ci.InCommitTimestamp
			}
			return ci.Timestamp
		}
	}
	return nil
}
