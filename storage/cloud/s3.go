package cloud

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// s3Backend talks to S3 with the AWS SDK directly: conditional PUT with
// If-None-Match, StartAfter listings, DeleteObjects batches and the
// transfer manager's multipart upload with our threshold and part size.
type s3Backend struct {
	client *s3.Client
	bucket string
	// checksums: send the SDK's default upload checksums (AWS itself);
	// off for custom endpoints, where they are often not understood.
	checksums bool
}

func (b *s3Backend) get(ctx context.Context, key string, offset, length int64, etag string) (io.ReadCloser, error) {
	in := &s3.GetObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)}
	switch {
	case length >= 0:
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", offset, offset+length-1))
	case offset > 0:
		in.Range = aws.String(fmt.Sprintf("bytes=%d-", offset))
	}
	if etag != "" {
		in.IfMatch = aws.String(etag)
	}
	out, err := b.client.GetObject(ctx, in)
	if err != nil {
		return nil, err
	}
	return out.Body, nil
}

func (b *s3Backend) head(ctx context.Context, key string) (objectMeta, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)})
	if err != nil {
		return objectMeta{}, err
	}
	return objectMeta{key: key, size: aws.ToInt64(out.ContentLength), mod: aws.ToTime(out.LastModified), etag: aws.ToString(out.ETag)}, nil
}

func (b *s3Backend) list(ctx context.Context, prefix, startAfter string) iter.Seq2[objectMeta, error] {
	return func(yield func(objectMeta, error) bool) {
		in := &s3.ListObjectsV2Input{Bucket: aws.String(b.bucket), Prefix: aws.String(prefix)}
		if startAfter != "" {
			in.StartAfter = aws.String(startAfter)
		}
		p := s3.NewListObjectsV2Paginator(b.client, in)
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				yield(objectMeta{}, err)
				return
			}
			for _, o := range page.Contents {
				k := aws.ToString(o.Key)
				if strings.HasSuffix(k, "/") || k <= startAfter {
					continue // directory markers are not objects
				}
				if !yield(objectMeta{key: k, size: aws.ToInt64(o.Size), mod: aws.ToTime(o.LastModified), etag: aws.ToString(o.ETag)}, nil) {
					return
				}
			}
		}
	}
}

func (b *s3Backend) put(ctx context.Context, key string, data []byte, ifAbsent bool) error {
	in := &s3.PutObjectInput{
		Bucket:        aws.String(b.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
	}
	if ifAbsent {
		in.IfNoneMatch = aws.String("*")
	}
	_, err := b.client.PutObject(ctx, in)
	return err
}

func (b *s3Backend) createIfAbsent(ctx context.Context, key string, data []byte) error {
	return b.put(ctx, key, data, true)
}

func (b *s3Backend) putBytes(ctx context.Context, key string, data []byte) error {
	return b.put(ctx, key, data, false)
}

func (b *s3Backend) putMultipart(ctx context.Context, key string, head []byte, rest io.Reader, mp uploadPlan) error {
	tm := transfermanager.New(b.client, func(o *transfermanager.Options) {
		o.PartSizeBytes = mp.PartSize
		o.MultipartUploadThreshold = mp.PartSize // the store already decided: multipart
		o.Concurrency = mp.Concurrency
		o.FailTimeout = s3FailTimeout // abort the upload even after a cancel
		if !b.checksums {
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		}
	})
	_, err := tm.UploadObject(ctx, &transfermanager.UploadObjectInput{
		Bucket: aws.String(b.bucket),
		Key:    aws.String(key),
		Body:   io.MultiReader(bytes.NewReader(head), rest),
	})
	if err != nil {
		b.abortUploads(ctx, key)
	}
	return err
}

// abortUploads aborts, best effort, every multipart upload still open for
// key. The transfer manager aborts the upload it knows of, but a cancel
// that lands while CreateMultipartUpload is answered leaves an upload
// whose id it never learned. Data file keys are unique to their writer, so
// an open upload for one is this writer's.
func (b *s3Backend) abortUploads(ctx context.Context, key string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s3FailTimeout)
	defer cancel()
	out, err := b.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(b.bucket), Prefix: aws.String(key)})
	if err != nil {
		return
	}
	for _, u := range out.Uploads {
		if aws.ToString(u.Key) == key {
			_, _ = b.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(b.bucket), Key: u.Key, UploadId: u.UploadId})
		}
	}
}

// deleteBatch is S3's limit of keys per DeleteObjects request.
const deleteBatch = 1000

func (b *s3Backend) deleteKeys(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), deleteBatch)
		batch := keys[:n]
		keys = keys[n:]
		objs := make([]types.ObjectIdentifier, len(batch))
		for i, k := range batch {
			objs[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		out, err := b.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: aws.String(b.bucket),
			Delete: &types.Delete{Objects: objs, Quiet: aws.Bool(true)},
		})
		if err != nil {
			if b.classify(err) != classUnsupported {
				return err
			}
			// Servers without DeleteObjects: one request per key.
			if err := b.deleteEach(ctx, batch); err != nil {
				return err
			}
			continue
		}
		for _, e := range out.Errors {
			if aws.ToString(e.Code) == "NoSuchKey" {
				continue
			}
			return &smithy.GenericAPIError{Code: aws.ToString(e.Code),
				Message: fmt.Sprintf("deleting %s: %s", aws.ToString(e.Key), aws.ToString(e.Message))}
		}
	}
	return nil
}

// deleteEach deletes keys one request each, a few at a time.
func (b *s3Backend) deleteEach(ctx context.Context, keys []string) error {
	return forEachLimit(ctx, keys, 16, func(ctx context.Context, k string) error {
		_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(k)})
		if err != nil && b.classify(err) == classNotFound {
			return nil
		}
		return err
	})
}

func (b *s3Backend) classify(err error) errClass {
	if c := netClass(err); c == classCanceled {
		return c
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return classNotFound
		case "PreconditionFailed":
			return classExists
		case "ConditionalRequestConflict", "OperationAborted":
			return classConflict
		case "NoSuchBucket":
			return classNoBucket
		case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken",
			"ExpiredToken", "Forbidden", "AllAccessDisabled", "InvalidSecurity":
			return classDenied
		case "NotImplemented":
			return classUnsupported
		}
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		if re.HTTPStatusCode() == http.StatusConflict {
			// Other 409s on a write are transient server-side races too
			// (a gateway creating the same parent directory twice).
			return classConflict
		}
		if c, ok := statusClass(re.HTTPStatusCode()); ok {
			return c
		}
	}
	return netClass(err)
}
