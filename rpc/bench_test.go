package rpc

import (
	"bufio"
	"context"
	"io"
	"testing"
)

// BenchmarkRoundTrip measures one request → response through in-memory pipes: framing,
// classification, the library, a handler goroutine, id restoration and the write.
func BenchmarkRoundTrip(b *testing.B) {
	for _, bc := range []struct {
		name    string
		request string
		inline  bool
	}{
		{"small", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"path":"src/main.go"}}` + "\n", false},
		{"small-inline", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"path":"src/main.go"}}` + "\n", true},
		{"4KiB", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"echo","params":{"content":"` + string(make4K()) + `"}}` + "\n", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			opts := Options{Inline: func(string) bool { return bc.inline }}
			done := make(chan error, 1)
			go func() { done <- Serve(context.Background(), inR, outW, HandlerFunc(testHandler), opts) }()
			out := bufio.NewReaderSize(outR, 64<<10)
			req := []byte(bc.request)
			b.SetBytes(int64(len(req)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := inW.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := out.ReadSlice('\n'); err != nil {
					b.Fatal(err)
				}
			}
			inW.Close()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}

func make4K() []byte {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = "abc <&> xyz"[i%11]
	}
	return b
}
