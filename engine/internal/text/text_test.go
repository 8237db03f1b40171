package text

import "testing"

func TestDecodeLenient(t *testing.T) {
	cases := map[string]string{
		"plain":            "plain",
		"a\xffb":           "a\ufffdb",
		"\xff\xfe":         "\ufffd\ufffd",
		"\xe2\x82":         "\ufffd",             // one maximal subpart
		"\xe2\x82a":        "\ufffda",            // truncated sequence then ASCII
		"\xed\xa0\x80":     "\ufffd\ufffd\ufffd", // a surrogate: ED is valid only with 80..9F
		"\xf0\x9f\x98":     "\ufffd",
		"caf\xe9 needle\n": "caf\ufffd needle\n",
	}
	for in, want := range cases {
		if got := DecodeLenient([]byte(in)); got != want {
			t.Errorf("DecodeLenient(%q) = %q; want %q", in, got, want)
		}
		if n := RuneCountLenient([]byte(in)); n != len([]rune(want)) {
			t.Errorf("RuneCountLenient(%q) = %d; want %d", in, n, len([]rune(want)))
		}
	}
	if got := Thousands(1234567); got != "1,234,567" {
		t.Errorf("thousands = %s", got)
	}
}
