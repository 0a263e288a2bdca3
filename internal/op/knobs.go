package op

import (
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Knobs are the reading and writing knobs of an operation's options.
type Knobs struct {
	MaxParallelFiles                      int
	MaxBufferedBytes                      int64
	ReadBatchSize                         int
	TargetFileSize                        int64
	MultipartThreshold, MultipartPartSize int64
}

// Options are the rewrite options of the knobs on snap's store.
func (k Knobs) Options(snap *snapshot.Snapshot, lim *limits.Limits) (rewrite.Options, error) {
	out, err := storage.WithUploads(snap.Store(), k.MultipartThreshold, k.MultipartPartSize)
	if err != nil {
		return rewrite.Options{}, err
	}
	return rewrite.Options{
		Store: out, TargetFileSize: k.TargetFileSize, MaxParallelFiles: k.MaxParallelFiles,
		MaxBufferedBytes: k.MaxBufferedBytes, ReadBatchSize: k.ReadBatchSize, Limits: lim,
	}, nil
}
