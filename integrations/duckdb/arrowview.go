//go:build duckdb_arrow

package duckdbio

// The bulk path hands DuckDB a vector's worth (2048 rows) of a batch at a
// time. bindings.DataChunkFromArrow exports the slice and its schema anew
// for every such call (Go structures, C strings, a cgo callback to release
// each): a fifth of the Go CPU of moving a batch. Here a batch is exported
// once, and each vector gets a view of it in C: the exported columns with
// their offset and length moved, sharing the export, which a count of the
// views DuckDB still holds releases with the last of them. DuckDB takes
// ownership of each view (duckdb_data_chunk_from_arrow moves it into the
// chunk, whose vectors may outlive the call) and releases it from its own
// threads, so the count is atomic.

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>

// The Arrow C data interface (arrow/c/abi.h), as the spec fixes it.
struct ArrowArray {
	int64_t length;
	int64_t null_count;
	int64_t offset;
	int64_t n_buffers;
	int64_t n_children;
	const void** buffers;
	struct ArrowArray** children;
	struct ArrowArray* dictionary;
	void (*release)(struct ArrowArray*);
	void* private_data;
};

// DuckDB's C API (duckdb.h); its handles are pointers.
extern void *duckdb_data_chunk_from_arrow(void *connection, struct ArrowArray *arrow_array,
	void *converted_schema, void **out_chunk);

// dl_export is one exported batch (a struct array of the bulk columns)
// and the count of its holders: the Go side and every live view.
typedef struct {
	struct ArrowArray batch;
	atomic_long refs;
} dl_export;

static dl_export *dl_export_new(void) {
	dl_export *e = calloc(1, sizeof(dl_export));
	if (e) atomic_init(&e->refs, 1);
	return e;
}

static void dl_export_unref(dl_export *e) {
	if (atomic_fetch_sub(&e->refs, 1) == 1) {
		if (e->batch.release) e->batch.release(&e->batch);
		free(e);
	}
}

// A view's memory: the export it holds, then its columns and their
// pointers. Its columns are released with it (the spec: a consumer
// releases the top-level array only), so theirs only mark them released.
typedef struct {
	dl_export *export;
	const void *buffers[1];
} dl_view;

static void dl_column_release(struct ArrowArray *a) { a->release = NULL; }

static void dl_view_release(struct ArrowArray *a) {
	dl_view *v = a->private_data;
	dl_export *e = v->export;
	a->release = NULL;
	free(v);
	dl_export_unref(e);
}

// dl_nulls counts the unset bits of a validity bitmap in [off, off+n).
// A slice's null count must be exact: DuckDB reads a dictionary column's
// validity only when the count is positive.
static int64_t dl_nulls(const uint8_t *bits, int64_t off, int64_t n) {
	int64_t set = 0, i = off, end = off + n;
	for (; i < end && (i & 7); i++) set += (bits[i >> 3] >> (i & 7)) & 1;
	for (; i + 8 <= end; i += 8) set += __builtin_popcount(bits[i >> 3]);
	for (; i < end; i++) set += (bits[i >> 3] >> (i & 7)) & 1;
	return n - set;
}

// dl_view_make sets out to rows off..off+n of the export.
static int dl_view_make(dl_export *e, int64_t off, int64_t n, struct ArrowArray *out) {
	int64_t k = e->batch.n_children;
	dl_view *v = calloc(1, sizeof(dl_view) + k * (sizeof(struct ArrowArray) + sizeof(struct ArrowArray *)));
	if (!v) return 0;
	struct ArrowArray *cols = (struct ArrowArray *)(v + 1);
	struct ArrowArray **ptrs = (struct ArrowArray **)(cols + k);
	for (int64_t i = 0; i < k; i++) {
		cols[i] = *e->batch.children[i];
		cols[i].offset += e->batch.offset + off;
		cols[i].length = n;
		if (cols[i].null_count != 0) {
			cols[i].null_count = cols[i].n_buffers > 0 && cols[i].buffers[0]
				? dl_nulls(cols[i].buffers[0], cols[i].offset, n) : 0;
		}
		cols[i].release = dl_column_release;
		cols[i].private_data = NULL;
		ptrs[i] = &cols[i];
	}
	v->export = e;
	atomic_fetch_add(&e->refs, 1);
	memset(out, 0, sizeof *out);
	out->length = n;
	out->n_buffers = 1;
	out->buffers = v->buffers;
	out->n_children = k;
	out->children = ptrs;
	out->release = dl_view_release;
	out->private_data = v;
	return 1;
}

// dl_chunk converts rows off..off+n of the export into a DuckDB chunk; it
// returns DuckDB's error data (NULL: success) and 0 when out of memory.
static int dl_chunk(dl_export *e, int64_t off, int64_t n, void *conn, void *schema, void **chunk, void **err) {
	struct ArrowArray view;
	if (!dl_view_make(e, off, n, &view)) return 0;
	*err = duckdb_data_chunk_from_arrow(conn, &view, schema, chunk);
	if (view.release) view.release(&view); // not taken: DuckDB failed before
	return 1;
}
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	bindings "github.com/duckdb/duckdb-go-bindings"
)

// exported is a batch exported to C once, for views of its rows.
type exported struct {
	e *C.dl_export
}

// exportBatch exports rec (the bulk columns of a batch, whole).
func exportBatch(rec arrow.RecordBatch) (exported, error) {
	e := C.dl_export_new()
	if e == nil {
		return exported{}, errors.New("out of memory exporting a batch to DuckDB")
	}
	cdata.ExportArrowRecordBatch(rec, (*cdata.CArrowArray)(unsafe.Pointer(&e.batch)), nil)
	return exported{e}, nil
}

// chunk converts n rows of the export from off into a DuckDB chunk with
// the converted schema; the chunk holds the export until DuckDB releases it.
func (x exported) chunk(conn bindings.Connection, conv bindings.ArrowConvertedSchema, off, n int) (bindings.DataChunk, bindings.ErrorData, error) {
	var chunk, ed unsafe.Pointer
	if C.dl_chunk(x.e, C.int64_t(off), C.int64_t(n), conn.Ptr, conv.Ptr, &chunk, &ed) == 0 {
		return bindings.DataChunk{}, bindings.ErrorData{}, errors.New("out of memory handing a batch to DuckDB")
	}
	return bindings.DataChunk{Ptr: chunk}, bindings.ErrorData{Ptr: ed}, nil
}

// release drops the Go side's hold of the export.
func (x exported) release() {
	if x.e != nil {
		C.dl_export_unref(x.e)
	}
}
