package text

import "testing"

// FuzzRuneCounter checks that counting a stream in arbitrary chunks agrees with counting it
// whole, which the oversized-line notice relies on.
func FuzzRuneCounter(f *testing.F) {
	f.Add([]byte("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xff\xe2\x82"), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, step uint8) {
		k := int(step%7) + 1
		var rc RuneCounter
		for i := 0; i < len(b); i += k {
			rc.Write(b[i:min(i+k, len(b))])
		}
		if got, want := rc.Total(), RuneCountLenient(b); got != want {
			t.Fatalf("chunked count of %q by %d = %d; want %d", b, k, got, want)
		}
	})
}
