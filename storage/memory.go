package storage

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Memory is an in-process Store, for tests and scratch tables. Stores opened
// from the same memory:// URL in one process share their objects.
type Memory struct {
	name string
	mu   sync.RWMutex
	objs map[string]memObject
}

type memObject struct {
	data []byte
	mod  time.Time
}

// NewMemory returns an empty, unshared in-memory store.
func NewMemory() *Memory { return &Memory{name: "anonymous", objs: map[string]memObject{}} }

var (
	memMu     sync.Mutex
	memStores = map[string]*Memory{}
)

func openMemoryURL(_ context.Context, u *url.URL, options map[string]string) (Store, error) {
	if len(options) > 0 {
		return nil, fmt.Errorf("memory store takes no storage options, got %s", optionNames(options))
	}
	name := u.Host + u.Path
	memMu.Lock()
	defer memMu.Unlock()
	m, ok := memStores[name]
	if !ok {
		m = &Memory{name: name, objs: map[string]memObject{}}
		memStores[name] = m
	}
	return m, nil
}

func (m *Memory) URL() string { return "memory://" + m.name }

func (m *Memory) get(key string) (memObject, string, error) {
	k, err := CleanKey(key)
	if err != nil {
		return memObject{}, "", err
	}
	m.mu.RLock()
	o, ok := m.objs[k]
	m.mu.RUnlock()
	if !ok {
		return memObject{}, k, NotExistError(key, "")
	}
	return o, k, nil
}

func (m *Memory) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	o, _, err := m.get(key)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(o.data)), nil
}

type memReader struct{ *bytes.Reader }

func (memReader) Close() error { return nil }

func (m *Memory) Open(ctx context.Context, key string) (Reader, error) {
	o, _, err := m.get(key)
	if err != nil {
		return nil, err
	}
	return memReader{bytes.NewReader(o.data)}, nil
}

func (m *Memory) Head(ctx context.Context, key string) (ObjectInfo, error) {
	o, k, err := m.get(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	return ObjectInfo{Key: k, Size: int64(len(o.data)), ModTime: o.mod}, nil
}

func (m *Memory) List(ctx context.Context, prefix, startAfter string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		m.mu.RLock()
		var out []ObjectInfo
		for k, o := range m.objs {
			if strings.HasPrefix(k, prefix) && k > startAfter {
				out = append(out, ObjectInfo{Key: k, Size: int64(len(o.data)), ModTime: o.mod})
			}
		}
		m.mu.RUnlock()
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
		for _, o := range out {
			if !yield(o, nil) {
				return
			}
		}
	}
}

func (m *Memory) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	k, err := CleanKey(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[k]; ok {
		return ExistError(key)
	}
	m.objs[k] = memObject{data: bytes.Clone(data), mod: time.Now()}
	return nil
}

func (m *Memory) Put(ctx context.Context, key string, r io.Reader) error {
	k, err := CleanKey(key)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(ctxReader{ctx, r})
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.objs[k] = memObject{data: data, mod: time.Now()}
	m.mu.Unlock()
	return nil
}

// SetModTime changes an object's modification time (tests of timestamp
// time travel set commit mtimes this way).
func (m *Memory) SetModTime(key string, t time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	if !ok {
		return NotExistError(key, "")
	}
	o.mod = t
	m.objs[key] = o
	return nil
}

func (m *Memory) Delete(ctx context.Context, keys ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, key := range keys {
		k, err := CleanKey(key)
		if err != nil {
			return err
		}
		delete(m.objs, k)
	}
	return nil
}
