package storage

import (
	"context"
	"errors"
	"io"
)

// ObjectWriter writes one object. Nothing is visible under its key until
// Commit returns; Abort discards what was written. After either, the
// writer must not be used.
type ObjectWriter interface {
	io.Writer
	Commit() error
	Abort()
}

// Create starts a new object under key, streamed to the store's Put on a
// goroutine: the caller's next bytes are produced while the store takes
// the last ones.
func Create(ctx context.Context, s Store, key string) (ObjectWriter, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	o := &putWriter{pw: pw, done: make(chan error, 1)}
	go func() {
		err := s.Put(ctx, key, pr)
		if err == nil {
			err = errPutReturned // Put must read to the end before it stores anything
		}
		pr.CloseWithError(err) // unblocks Write if Put stopped reading early
		o.done <- err
	}()
	return o, nil
}

var (
	errAborted     = errors.New("write aborted")
	errPutReturned = errors.New("the store stopped reading before the object was complete")
)

// putWriter feeds a Put through a pipe.
type putWriter struct {
	pw   *io.PipeWriter
	done chan error // Put's result
}

// Write fails with Put's error once Put has failed.
func (o *putWriter) Write(p []byte) (int, error) {
	n, err := o.pw.Write(p)
	if err != nil {
		select {
		case perr := <-o.done:
			o.done <- perr
			if perr != nil && !errors.Is(perr, errPutReturned) {
				err = perr
			}
		default:
		}
	}
	return n, err
}

func (o *putWriter) Commit() error {
	o.pw.Close()
	err := <-o.done
	if errors.Is(err, errPutReturned) {
		return nil // Put returned only after reading everything
	}
	return err
}

func (o *putWriter) Abort() {
	o.pw.CloseWithError(errAborted)
	<-o.done
}
