//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/deltalite-go/deltalite/iohandler"
)

// TypeHandler stores and loads IO handler assets as *Relation: a write
// runs the relation and streams its result into the asset's table as the
// handler resolved it (mode, partition, merge); a load returns the table
// as a lazy relation with the handler's columns, version and partition
// predicate (which prunes the files delta_scan reads).
//
// Loads of one step join when they share a session: pass it with
// WithSession in the context; without one, loads share the handler's own
// session. A loaded table is read on the store the IO handler opened it
// with (its storage options), whatever the resource's.
type TypeHandler struct {
	res *Resource

	mu     sync.Mutex
	shared *Session
}

// Register adds a DuckDB type handler over res to the IO handler's
// registry and returns it.
func Register(res *Resource) *TypeHandler {
	th := &TypeHandler{res: res}
	iohandler.RegisterTypeHandler(th)
	return th
}

var relationType = reflect.TypeFor[*Relation]()

// Handles takes *Relation.
func (*TypeHandler) Handles(t reflect.Type) bool { return t == relationType }

// TypeNames names the type in the IO handler's unsupported-type error.
func (*TypeHandler) TypeNames() []string { return []string{relationType.String()} }

// Write runs the relation and writes its result.
func (*TypeHandler) Write(ctx context.Context, req *iohandler.WriteRequest, v any) (iohandler.Metadata, error) {
	rel, ok := v.(*Relation)
	if !ok || rel == nil {
		return nil, fmt.Errorf("asset %q: the DuckDB type handler stores a *duckdbio.Relation, not a %T", req.Asset, v)
	}
	rr, err := rel.Query(ctx)
	if err != nil {
		return nil, fmt.Errorf("asset %q: running its DuckDB relation: %w", req.Asset, err)
	}
	defer rr.Release()
	return iohandler.WriteArrow(ctx, req, rr)
}

// Read returns the asset's table as a lazy relation on the context's
// session (or the handler's).
func (h *TypeHandler) Read(ctx context.Context, req *iohandler.ReadRequest, _ reflect.Type) (any, error) {
	s, err := h.session(ctx)
	if err != nil {
		return nil, err
	}
	if req.Table != nil {
		h.res.stores.Store(req.TableURI, req.Table.Store())
	}
	var opts []LoadOption
	if req.Version != nil {
		opts = append(opts, AtVersion(*req.Version))
	}
	if req.Predicate != "" {
		opts = append(opts, Where(req.Predicate))
	}
	if req.Columns != nil {
		opts = append(opts, Columns(req.Columns...))
	}
	return s.Load(req.TableURI, opts...), nil
}

func (h *TypeHandler) session(ctx context.Context) (*Session, error) {
	if s, ok := ctx.Value(sessionKey{}).(*Session); ok {
		return s, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.shared == nil {
		s, err := h.res.Session(ctx)
		if err != nil {
			return nil, err
		}
		h.shared = s
	}
	return h.shared, nil
}

type sessionKey struct{}

// WithSession makes the DuckDB type handler load relations on s for
// calls with the returned context: the inputs of one step (one goroutine)
// then join on s.
func WithSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}
