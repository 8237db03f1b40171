// Package scan reads the lines of a file the engine has already opened, in one streaming pass:
//
//   - [Read] (read_file, file_info) hashes every byte, decides binary or media from the first
//     text.SniffBytes, counts lines and renders the requested [Window] of numbered lines into one
//     arena; with a [Piece] it collects the characters [column, column+budget) of one line;
//   - [Matcher] (search_files, grep) finds the lines matching a regexp, searching the buffer for
//     a literal every match must contain ([Matcher.Scan]) and giving only those lines to the
//     regexp; a [State] is one worker's reusable buffer.
//
// It protects against memory that grows with the file: Read holds at most one chunk
// (readChunkBytes) plus the window's budget (a line longer than the budget is counted, not
// kept), a Piece at most its budget of characters however long the line, and a Matcher's buffer
// grows only to hold the longest line, never past the size its caller passes. Read checks its
// context every 256 chunks, so a cancelled call stops within a bounded amount of reading. A file
// that grows while it is read is hashed as read; Scan reads no more than the size it is given.
//
// It does not open, resolve or check access to anything (the engine hands it an io.Reader of a
// file it opened and checked, and maps its errors), bound the cost of the pattern (the engine
// compiles search patterns within its pattern bounds before calling [MatcherOf]), decide which
// files are too large to search, or word the text the model sees around the lines.
package scan
