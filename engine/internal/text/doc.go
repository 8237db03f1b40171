// Package text is what the engine does to bytes on their way to the model: lenient decoding of
// bytes that are not UTF-8 (DecodeLenient, RuneCounter), binary and media sniffing (SniffMedia,
// HasNUL, HexPreview), content hashes (ContentHash, the short hash the model quotes back as
// expected_hash), the output budget of a listing (Budget, BudgetLine, NoticePaths) and the
// rendering of long matching lines (CutLine).
//
// It protects against unbounded output: a listing's text stops at its budget and says so, a long
// line is shown as a window with a marker, a binary file is named and previewed rather than
// dumped. It does not bound the work done to produce the text (the engine's work budget does) nor
// read files itself: callers hand it the bytes.
package text
