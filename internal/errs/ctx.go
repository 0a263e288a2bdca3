package errs

import "context"

var (
	errContextCanceled = context.Canceled
	errContextDeadline = context.DeadlineExceeded
)
