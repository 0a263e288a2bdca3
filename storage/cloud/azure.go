package cloud

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// azureBackend talks to Blob Storage (and ADLS Gen2 through its blob
// endpoint) with the azblob SDK directly. Keys go to the service exactly as
// given: Delta partition paths hold '%', which must reach the service
// unchanged for other engines to find the files.
type azureBackend struct {
	client *container.Client
}

func (b *azureBackend) get(ctx context.Context, key string, offset, length int64, etag string) (io.ReadCloser, error) {
	opts := &blob.DownloadStreamOptions{}
	if offset > 0 || length >= 0 {
		opts.Range = blob.HTTPRange{Offset: offset}
		if length >= 0 {
			opts.Range.Count = length
		}
	}
	if etag != "" {
		e := azcore.ETag(etag)
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &e}}
	}
	resp, err := b.client.NewBlobClient(key).DownloadStream(ctx, opts)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func (b *azureBackend) head(ctx context.Context, key string) (objectMeta, error) {
	p, err := b.client.NewBlobClient(key).GetProperties(ctx, nil)
	if err != nil {
		return objectMeta{}, err
	}
	m := objectMeta{key: key, size: deref(p.ContentLength), mod: deref(p.LastModified)}
	if p.ETag != nil {
		m.etag = string(*p.ETag)
	}
	return m, nil
}

// list filters on the client: Blob Storage has no start-after, only an
// opaque continuation marker.
func (b *azureBackend) list(ctx context.Context, prefix, startAfter string) iter.Seq2[objectMeta, error] {
	return func(yield func(objectMeta, error) bool) {
		opts := &container.ListBlobsFlatOptions{}
		if prefix != "" {
			opts.Prefix = &prefix
		}
		pager := b.client.NewListBlobsFlatPager(opts)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				yield(objectMeta{}, err)
				return
			}
			for _, it := range page.Segment.BlobItems {
				k := deref(it.Name)
				if k <= startAfter || strings.HasSuffix(k, "/") {
					continue
				}
				m := objectMeta{key: k}
				if p := it.Properties; p != nil {
					m.size, m.mod = deref(p.ContentLength), deref(p.LastModified)
					if p.ETag != nil {
						m.etag = string(*p.ETag)
					}
				}
				if !yield(m, nil) {
					return
				}
			}
		}
	}
}

// createIfAbsent is one Put Blob with If-None-Match: * (not the buffered
// writer of other libraries, which crashes when the condition fails).
func (b *azureBackend) createIfAbsent(ctx context.Context, key string, data []byte) error {
	anyTag := azcore.ETagAny
	_, err := b.client.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), &blockblob.UploadOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &anyTag}},
	})
	return err
}

func (b *azureBackend) putBytes(ctx context.Context, key string, data []byte) error {
	_, err := b.client.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), nil)
	return err
}

// putMultipart stages blocks and commits the block list last: until then
// the blob (or its previous version) is all a reader sees.
func (b *azureBackend) putMultipart(ctx context.Context, key string, head []byte, rest io.Reader, mp uploadPlan) error {
	_, err := b.client.NewBlockBlobClient(key).UploadStream(ctx, io.MultiReader(bytes.NewReader(head), rest), &blockblob.UploadStreamOptions{
		BlockSize:   mp.PartSize,
		Concurrency: mp.Concurrency,
	})
	return err
}

func (b *azureBackend) deleteKeys(ctx context.Context, keys []string) error {
	return forEachLimit(ctx, keys, 16, func(ctx context.Context, k string) error {
		_, err := b.client.NewBlobClient(k).Delete(ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})
		if err != nil && b.classify(err) == classNotFound {
			return nil
		}
		return err
	})
}

func (b *azureBackend) classify(err error) errClass {
	if c := netClass(err); c == classCanceled {
		return c
	}
	switch {
	case bloberror.HasCode(err, bloberror.BlobNotFound):
		return classNotFound
	case bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet):
		return classExists
	case bloberror.HasCode(err, bloberror.ContainerNotFound, bloberror.ContainerBeingDeleted):
		return classNoBucket
	case bloberror.HasCode(err, bloberror.AuthenticationFailed, bloberror.AuthorizationFailure,
		bloberror.AuthorizationPermissionMismatch, bloberror.AuthorizationResourceTypeMismatch,
		bloberror.InsufficientAccountPermissions, bloberror.InvalidAuthenticationInfo):
		return classDenied
	}
	var af *azidentity.AuthenticationFailedError
	if errors.As(err, &af) {
		return classDenied
	}
	var cu interface{ NonRetriable() }
	if errors.As(err, &cu) && strings.Contains(err.Error(), "credential") {
		return classDenied // no credential in the chain could be used
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		if c, ok := statusClass(re.StatusCode); ok {
			return c
		}
	}
	return netClass(err)
}

// deref reads an optional field of an SDK response.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
