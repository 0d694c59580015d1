package providers

import (
	"io"
	"testing"
)

// BenchmarkClassify classifies a mix of every wire.md §4 body and a few
// transport failures, one error per op.
func BenchmarkClassify(b *testing.B) {
	var errs []error
	for _, w := range wireCases() {
		errs = append(errs, w.apiError())
	}
	errs = append(errs, io.ErrUnexpectedEOF, &APIError{Provider: "x", MidStream: true, Err: io.ErrUnexpectedEOF})
	in := ClassifyInput{Provider: "openai", Model: "gpt-4.1", ApproxTokens: 20_000, ContextLength: 128_000, MessageCount: 30}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		_ = ClassifyWith(errs[i%len(errs)], in)
	}
}
