package write

import (
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/s2"
)

// fastSnappy is arrow-go's Snappy codec with the standard-speed encoder in
// place of its "better" one, which spends about twice the CPU for a few
// percent on typical data and nothing on data that does not compress. The
// output is plain Snappy either way; decoding is unchanged.
type fastSnappy struct{ compress.Codec }

func (fastSnappy) Encode(dst, src []byte) []byte { return s2.EncodeSnappy(dst, src) }

func (fastSnappy) EncodeLevel(dst, src []byte, _ int) []byte { return s2.EncodeSnappy(dst, src) }

// The codec registry is process-wide; replacing the Snappy entry before any
// goroutine runs is the only way arrow-go offers to choose the encoder.
func init() {
	if c, err := compress.GetCodec(compress.Codecs.Snappy); err == nil {
		compress.RegisterCodec(compress.Codecs.Snappy, fastSnappy{c})
	}
}
