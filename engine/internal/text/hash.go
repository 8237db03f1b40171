package text

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strings"
)

// HashHexDigits is the length of a content hash: the first 12 lowercase hex digits of SHA-256
// over the file's raw bytes.
const HashHexDigits = 12

// NewHash returns the hash state of a content hash.
func NewHash() hash.Hash { return sha256.New() }

// ShortHash returns the content hash (12 lowercase hex digits) of a finished hash state.
func ShortHash(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil))[:HashHexDigits] }

// ContentHash returns the content hash of b.
func ContentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:HashHexDigits]
}

// ParseExpectedHash normalises an expected_hash argument: an optional "hash:" prefix, surrounding
// space and upper case are accepted. ok is false when what remains is not 12 hex digits.
func ParseExpectedHash(s string) (h string, ok bool) {
	h = strings.ToLower(strings.TrimSpace(s))
	h = strings.TrimPrefix(h, "hash:")
	if len(h) != HashHexDigits {
		return h, false
	}
	if _, err := hex.DecodeString(h); err != nil {
		return h, false
	}
	return h, true
}
