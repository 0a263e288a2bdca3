package asset

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// ErrSkipped marks the result of an asset that did not run because an
// asset it had to wait for failed.
var ErrSkipped = errors.New("skipped")

// links maps each asset of order to the nearest assets of order upstream
// of it, looking through the assets outside order: in a selection of a
// and c out of a -> b -> c, c is linked to a.
func (r *Repository) links(order []*Asset) map[string][]string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	in := map[string]bool{}
	for _, a := range order {
		in[a.name] = true
	}
	out := map[string][]string{}
	for _, a := range order {
		seen := map[string]bool{}
		var walk func(n string)
		walk = func(n string) {
			for _, up := range r.assets[n].Upstream() {
				if seen[up] {
					continue
				}
				seen[up] = true
				if in[up] {
					out[a.name] = append(out[a.name], up)
				} else {
					walk(up)
				}
			}
		}
		walk(a.name)
	}
	return out
}

// schedule runs every asset of order once its waitFor assets are done,
// at most r.parallelism at a time, and returns each asset's error (nil
// when it ran well). An asset whose waitFor asset failed is not run: its
// error wraps ErrSkipped.
func (r *Repository) schedule(ctx context.Context, order []*Asset, waitFor map[string][]string, run func(context.Context, *Asset) error) map[string]error {
	done := make(map[string]chan struct{}, len(order))
	for _, a := range order {
		done[a.name] = make(chan struct{})
	}
	var mu sync.Mutex
	results := make(map[string]error, len(order))
	result := func(n string) error { mu.Lock(); defer mu.Unlock(); return results[n] }
	sem := make(chan struct{}, r.parallelism)
	var wg sync.WaitGroup
	for _, a := range order {
		wg.Go(func() {
			defer close(done[a.name])
			err := func() error {
				for _, w := range waitFor[a.name] {
					<-done[w]
					if result(w) != nil {
						return fmt.Errorf("asset %q: %w because %q failed", a.name, ErrSkipped, w)
					}
				}
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return errs.Wrap(errs.Canceled, "", ctx.Err(), "asset %q", a.name)
				}
				defer func() { <-sem }()
				return protect(a.name, func() error { return run(ctx, a) })
			}()
			mu.Lock()
			results[a.name] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	return results
}

// protect turns a panic of the user's code into an error naming the asset.
func protect(asset string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errs.Recovered(errs.Internal, "", fmt.Sprintf("asset %q", asset), v)
		}
	}()
	return fn()
}
