// Package rpc is a hardened JSON-RPC 2.0 peer over a newline-delimited byte stream, such as a
// process's stdin and stdout.
//
// # What it owns, and what it doesn't
//
// rpc owns the bytes and the message rules: framing, size limits, validation of every incoming
// line, request ids, concurrency, cancellation ($/cancel_request), the mapping of handler
// errors to error codes, and server→client requests and notifications. It knows nothing about
// the methods it carries: a [Handler] decides what a method means, decodes its params, and
// answers unknown methods with [ErrMethodNotFound].
//
// The rules a single input line is judged by (framing rules 1, 2 and 4 and replies to bad input
// 1 to 4 and 6 below) are implemented by its leaf package [github.com/fsbox/fsbox/rpc/jsonl],
// which knows nothing of the connection, so that fsbox mcp's stdio transport answers bad lines
// with the same code rather than a copy of it. The rules that need the connection (a reply to an
// id we did not send, $/cancel_request, everything after a line is classified) are here.
//
// rpc implements the peer itself: the read loop, the dispatch of requests to handlers, the
// server→client calls and the output. (It used to sit in front of github.com/sourcegraph/jsonrpc2,
// which closes the connection on malformed input, cannot represent negative, big or null ids and
// HTML-escapes its output; keeping it meant marshalling every reply three times and two goroutine
// handoffs per request.)
//
// The cost of a request is kept near the transport's: a request with no other waiting runs on
// the goroutine that read it, while a new goroutine takes over reading (so $/cancel_request is
// still read during it); its reply is encoded once, into a pooled buffer, and written by that
// same goroutine when no other output is queued; with [Options.HoldNotifications] its last
// notification goes out in the reply's write.
//
// # Framing
//
//  1. Input is one JSON value per line, terminated by "\n". A trailing "\r" is stripped, and so
//     is a UTF-8 byte order mark at the start of a line. Lines that are empty or hold only
//     spaces and tabs are skipped. A last line without "\n" is served like any other.
//  2. A line longer than [Options.MaxMessageBytes] (16 MiB by default, not counting its "\n"
//     or "\r\n") is answered with -32600 and skipped to its end without being buffered; the
//     next line is read normally.
//  3. Output is one compact JSON object per line, "\n"-terminated, with no newline inside,
//     starting with "jsonrpc":"2.0". <, > and & are not escaped. Every line, whether a reply,
//     a notification, a call or an error the read loop answers itself, is written whole by one
//     Write (a held notification shares its reply's), in the order it was admitted: by the
//     goroutine that made it when nothing else is queued or being written, otherwise by the
//     output goroutine.
//  4. Every message must carry "jsonrpc": "2.0", as JSON-RPC 2.0 requires: one without it is
//     refused (rule 3 of the replies below) rather than guessed to be 2.0. Member names are case-sensitive. A "jsonrpc", "id", "method", "params", "result" or
//     "error" member that occurs twice is refused rather than guessed at, since parsers disagree
//     on which one wins; other members are ignored.
//
// # Replies to bad input
//
// Nothing in the input closes the connection. Each line below gets one error reply, except
// where said otherwise, and the next line is read normally.
//
//  1. A line that is not one JSON value (two values on one line, invalid UTF-8 included):
//     -32700, "id": null, with a message saying at which byte and what went wrong
//     ("parse error at byte 41: invalid character '{' after top-level value") and data
//     [ParseErrorData]: the offset, and at most 32 bytes of the line before it — never the whole line.
//  2. A JSON array (a batch, which this version does not support, even an empty one): one
//     -32600, "id": null.
//  3. A JSON value that is not an object; an object with no "method" that is not a reply;
//     "method" not a string; "id" not a string or an integer (fractions, exponents, true,
//     false, objects, arrays and null are refused); "jsonrpc" missing or not "2.0"; one of the
//     members named here twice; "method" together with "result" or "error": -32600, "id": null,
//     except that a request with a valid id whose only fault is "jsonrpc" is answered to that id,
//     since its caller waits for it.
//  4. "params" neither an object, an array nor null: -32602, to the request's id.
//  5. A reply (a "result" or "error" member, no "method") to an id we did not send, or sent and
//     already got a reply for: -32600, "id": null. A reply whose id is null or absent is logged and
//     dropped: answering it could start an endless exchange of errors between two peers.
//  6. A notification (a request without "id") is never answered, even when its params break
//     rule 4. Rules 1 to 3 apply to lines that cannot be recognised as a valid notification.
//
// # Ids
//
// An id is echoed byte for byte as sent: strings keep their escapes, and integers of any size
// and sign are kept as text, and written back as received. Server→client calls use string ids
// "srv-1", "srv-2", …, never reused.
//
// # Handling
//
//  1. Each request runs on its own goroutine (the one that read it, when no other request waits
//     for a slot; reading then moves to a new goroutine), so a slow handler never delays a fast
//     one and a handler may [Conn.Call] the client: the read loop keeps reading replies meanwhile. Methods
//     named by [Options.Inline] instead run on the read loop, in arrival order, and their reply
//     is queued for output before the next line is read. How many other handlers run at once is
//     bounded: see Backpressure below.
//  2. Notifications a handler sends with [Conn.Notify] are written before its response.
//  3. A handler's result goes out as "result" (nil as null). A returned [*Error], also wrapped,
//     goes out as is.
//  4. Any other error, a panic, an unencodable result or error data, and an *Error with code 0
//     become -32603 "internal error"; the Go error is passed to [Options.Logf], never to the client.
//  5. $/cancel_request {"id": <id>} is handled by rpc: it cancels the ctx of every in-flight
//     request with that id (compared as bytes, after removing insignificant whitespace). A request
//     is registered on the read loop before its handler starts, so a cancel on the next line
//     always finds it. If the handler then returns an error, the reply is -32800 "request
//     cancelled"; if it returns a result (its work had committed), the result is sent. Unknown
//     ids are ignored; sent as a request, $/cancel_request is answered null. Its params are
//     decoded strictly: exactly {"id": <string or integer>}, member names case-sensitive, no
//     other member, no duplicate. Anything else cancels nothing and, sent as a request, is
//     answered -32602 naming the member ("unknown member `ID`; did you mean `id`?"); sent as a
//     notification, it is logged.
//  6. At EOF on input nothing more is read; requests in flight finish and are answered, and then
//     Serve returns nil. Calls still waiting for a reply fail, since none can arrive. A write
//     error (the peer is gone) closes the connection and Serve returns nil, without logging.
//
// # Backpressure
//
// A connection's memory is bounded whatever the peer does, by three bounds in a chain:
//
//  1. Slots: at most [Options.MaxConcurrent] handlers are at work at once (default
//     [DefaultMaxConcurrent]: twice GOMAXPROCS, 8 to 64).
//  2. The request queue: at most [Options.MaxQueued] requests (default 64), with params of at most
//     MaxMessageBytes together, wait for a slot. When it is full the read loop waits, so nothing
//     more is read: the peer's writes block once the pipe is full.
//  3. The output queue: at most [Options.MaxOutputBytes] (default 4 MiB) of lines admitted and not
//     yet written, the one being written included. When it is full every writer waits: a handler
//     at its reply (keeping its slot), the read loop at an error reply of its own. A handler that
//     writes its own reply does so after it is counted out of the handlers Serve waits for, so
//     a peer that reads nothing blocks that goroutine (keeping its slot), never Serve.
//
// So a peer that stops reading stops, in turn, the writes, the handlers, the queue and the read
// loop; the server's memory stays flat, and once the peer reads again everything is answered.
//
// The one rule that keeps this from deadlocking with server→client calls: a handler waiting in
// [Conn.Call] for the peer's reply lends its slot, and takes one again before it goes on. Handlers
// waiting for replies therefore never hold every slot, the queue keeps draining, and the read
// loop gets to the replies. A stalled read loop blocks only new work: a reply or a
// $/cancel_request behind a request that waits at the full queue is read as soon as a slot
// frees, which a handler at work, not one waiting for the peer, does.
//
// # What it does not protect against
//
//   - Handlers that ignore ctx: Serve waits for every handler it started. (fsbox serve exits
//     anyway, 500 ms after SIGTERM.)
//   - A peer that stops reading: its cancels behind a full request queue wait, like everything
//     else it sent, until output moves. After Close, the goroutine blocked in the output's Write
//     (the output goroutine's, or a handler's writing its own reply) stays there until the write
//     returns or the process exits; output still queued is dropped.
//   - Handlers waiting in Call hold no slot, so their number is bounded only by what the peer
//     sends; each keeps its params (up to MaxMessageBytes) until the peer answers.
//   - A reply to a Call whose ctx was cancelled: the call's id is kept until a reply comes (which
//     is then dropped quietly) or the connection ends, so a client that never answers leaks one
//     small entry per call.
//   - Whatever a handler does with its params: rpc checks only that they are an object or array.
package rpc
