package deltalite

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/changes"
)

// ChangesOptions selects the changes Table.Changes reads: the range (by
// version or timestamp), the columns and a predicate. See package changes.
type ChangesOptions = changes.Options

// ChangesStats is what a read of the changes did (ChangesOptions.Stats):
// commits, files and bytes read, files skipped, rows.
type ChangesStats = changes.Stats

// Changes reads the table's change data feed (the table property
// delta.enableChangeDataFeed=true records it) from a start version or
// timestamp to an optional end, up to the version the table shows: one row
// per inserted, deleted, and updated (pre- and post-image) row, with the
// table's columns and _change_type, _commit_version and _commit_timestamp,
// as Spark's table_changes. Rows stream commit by commit; release the
// reader when done. A range that starts after the latest version or where
// change data was not recorded, and a change file that is gone (VACUUM),
// are errors that say so.
func (t *Table) Changes(ctx context.Context, opts ChangesOptions) (array.RecordReader, error) {
	return changes.Read(ctx, t.Snapshot(), opts)
}
