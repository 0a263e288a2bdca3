package cloud

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// S3 option keys, as delta-rs and object_store spell them.
const (
	awsAccessKeyID       = "AWS_ACCESS_KEY_ID"
	awsSecretAccessKey   = "AWS_SECRET_ACCESS_KEY"
	awsSessionToken      = "AWS_SESSION_TOKEN"
	awsRegion            = "AWS_REGION"
	awsDefaultRegion     = "AWS_DEFAULT_REGION"
	awsEndpoint          = "AWS_ENDPOINT_URL"
	awsVirtualHosted     = "AWS_VIRTUAL_HOSTED_STYLE_REQUEST"
	awsAllowUnsafeRename = "AWS_S3_ALLOW_UNSAFE_RENAME"
	awsConditionalPut    = "AWS_CONDITIONAL_PUT"
	awsLockingProvider   = "AWS_S3_LOCKING_PROVIDER"
	awsSkipSignature     = "AWS_SKIP_SIGNATURE"
	awsProfile           = "AWS_PROFILE"
)

var s3Options = newOptionSet("S3", "AWS_", []optionSpec{
	{key: awsAccessKeyID, aliases: []string{"ACCESS_KEY_ID"}, group: "credentials"},
	{key: awsSecretAccessKey, aliases: []string{"SECRET_ACCESS_KEY"}, secret: true, group: "credentials"},
	{key: awsSessionToken, aliases: []string{"AWS_TOKEN", "SESSION_TOKEN", "TOKEN"}, secret: true, group: "credentials"},
	{key: awsProfile, aliases: []string{"PROFILE"}, group: "credentials"},
	{key: awsSkipSignature, aliases: []string{"SKIP_SIGNATURE"}, group: "credentials"},
	{key: awsRegion, aliases: []string{"REGION"}},
	{key: awsDefaultRegion, aliases: []string{"DEFAULT_REGION"}},
	{key: awsEndpoint, aliases: []string{"AWS_ENDPOINT", "AWS_ENDPOINT_URL_S3", "ENDPOINT_URL", "ENDPOINT"}},
	{key: awsVirtualHosted, aliases: []string{"VIRTUAL_HOSTED_STYLE_REQUEST"}},
	{key: awsAllowUnsafeRename},
	{key: awsConditionalPut, aliases: []string{"CONDITIONAL_PUT"}},
	{key: awsLockingProvider},
})

const s3CredentialHint = "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, or the AWS credential chain"

// newS3Store opens s3://bucket/path (or s3a://). getenv supplies the
// environment (os.Getenv outside tests).
func newS3Store(ctx context.Context, u *url.URL, given map[string]string, getenv func(string) string) (*store, error) {
	loc, cfg, err := s3Options.open(u, given, getenv)
	if err != nil {
		return nil, err
	}
	cs, mp, err := cfg.transport(false)
	if err != nil {
		return nil, err
	}
	cond, err := s3Conditional(cfg)
	if err != nil {
		return nil, err
	}
	var endpoint *url.URL
	if cfg.has(awsEndpoint) {
		if endpoint, err = cs.checkEndpoint(awsEndpoint, cfg.str(awsEndpoint)); err != nil {
			return nil, err
		}
	}
	// Custom endpoints are usually path-style servers; AWS itself prefers
	// virtual-hosted requests.
	virtualHosted, err := cfg.boolOr(awsVirtualHosted, endpoint == nil)
	if err != nil {
		return nil, err
	}
	skipSig, err := cfg.bool(awsSkipSignature)
	if err != nil {
		return nil, err
	}

	red := newRedactor(cfg.secrets)
	httpClient := awshttp.NewBuildableClient().
		WithTimeout(cs.timeout).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = cs.connectTimeout }).
		WithTransportOptions(cs.tuneTransport)
	load := []func(*awsconfig.LoadOptions) error{
		// The SDK would print warnings (an instance-metadata fallback) to
		// standard error itself; failures reach the caller as errors.
		awsconfig.WithLogger(logging.Nop{}),
		awsconfig.WithClientLogMode(0),
		awsconfig.WithHTTPClient(httpClient),
		awsconfig.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = cs.maxRetries + 1
				o.MaxBackoff = cs.maxBackoff
				o.Backoff = jitterBackoff{max: cs.maxBackoff}
			})
		}),
	}
	region := cfg.str(awsRegion)
	if region == "" {
		region = cfg.str(awsDefaultRegion)
	}
	if region != "" {
		load = append(load, awsconfig.WithRegion(region))
	}
	if p := cfg.str(awsProfile); p != "" {
		load = append(load, awsconfig.WithSharedConfigProfile(p))
	}
	id, secret := cfg.str(awsAccessKeyID), cfg.str(awsSecretAccessKey)
	switch {
	case skipSig:
		load = append(load, awsconfig.WithCredentialsProvider(aws.AnonymousCredentials{}))
	case id != "" && secret != "":
		load = append(load, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(id, secret, cfg.str(awsSessionToken))))
	case id != "" || secret != "":
		return nil, errs.New(errs.InvalidArgument, loc.url, "give %s and %s together", awsAccessKeyID, awsSecretAccessKey)
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, loc.url, red.wrap(err), "loading the AWS configuration")
	}
	if !skipSig && id == "" {
		if err := s3DefaultCredentials(ctx, awsCfg, cfg.has(awsProfile), red); err != nil {
			return nil, at(loc.url, err)
		}
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		o.UsePathStyle = !virtualHosted
		if endpoint != nil {
			o.BaseEndpoint = aws.String(endpoint.String())
			// S3-compatible servers often reject the newer default
			// checksum headers; send them only where an operation needs one.
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
	where := fmt.Sprintf("AWS S3 (region %s)", awsCfg.Region)
	if endpoint != nil {
		where = fmt.Sprintf("the S3 endpoint %s", endpoint)
	}
	return &store{
		b: &s3Backend{client: client, bucket: loc.bucket, checksums: endpoint == nil},
		info: storeInfo{url: loc.url, bucket: loc.bucket, bucketWord: "bucket", root: loc.root,
			endpoint: where, credentialHint: s3CredentialHint},
		mp:   mp,
		red:  red,
		cond: cond,
	}, nil
}

// s3DefaultCredentials asks the default chain (profile files, web
// identity, container and instance roles) for credentials now, so that
// finding none is an error saying what to set rather than a failed first
// request. The chain's own reasons are kept only when a profile was named:
// otherwise they are about instance metadata the caller never asked for.
func s3DefaultCredentials(ctx context.Context, awsCfg aws.Config, profile bool, red *redactor) error {
	_, err := awsCfg.Credentials.Retrieve(ctx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return errs.Wrap(errs.Canceled, "", ctx.Err(), "looking for S3 credentials")
	}
	e := errs.New(errs.InvalidArgument, "", "no S3 credentials: set %s and %s (--storage-option or the environment), %s, or %s=true for a public bucket",
		awsAccessKeyID, awsSecretAccessKey, awsProfile, awsSkipSignature)
	if profile {
		e.Err = red.wrap(err)
	}
	return e
}

// s3Conditional reads how commits are protected. deltalite uses S3's own
// conditional writes; DynamoDB locking is not offered.
func s3Conditional(cfg *config) (*conditional, error) {
	if p := strings.TrimSpace(cfg.str(awsLockingProvider)); p != "" && !strings.EqualFold(p, "none") {
		return nil, errs.New(errs.InvalidArgument, "", "%s=%q is not supported: deltalite commits with S3 conditional writes (If-None-Match), which need no lock table; remove the option", awsLockingProvider, p)
	}
	unsafeOK, err := cfg.bool(awsAllowUnsafeRename)
	if err != nil {
		return nil, err
	}
	c := &conditional{probe: true, unsafeOK: unsafeOK}
	switch v := strings.ToLower(strings.TrimSpace(cfg.str(awsConditionalPut))); {
	case v == "" || v == "etag":
	case v == "disabled" || v == "none":
		c.declaredNone = true
	default:
		return nil, errs.New(errs.InvalidArgument, "", "%s=%q is not supported: use etag (the default) or disabled", awsConditionalPut, v)
	}
	return c, nil
}

// s3FailTimeout bounds the clean-up (abort) of a failed multipart upload,
// which runs even when the caller's context has ended.
const s3FailTimeout = 10 * time.Second
