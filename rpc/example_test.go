package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/fsbox/fsbox/rpc"
)

// A server with one method, an inline "shutdown", and the error replies rpc writes itself.
func ExampleServe() {
	h := rpc.HandlerFunc(func(ctx context.Context, c *rpc.Conn, req *rpc.Request) (any, error) {
		switch req.Method {
		case "greet":
			var p struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, rpc.ErrInvalidParams("greet: params must be {name}")
			}
			if err := c.Notify(ctx, "event", map[string]string{"greeted": p.Name}); err != nil {
				return nil, err
			}
			return "hello, " + p.Name, nil
		case "shutdown":
			c.Shutdown()
			return nil, nil
		}
		return nil, rpc.ErrMethodNotFound(req.Method)
	})
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"greet","params":{"name":"<you>"}}
{"jsonrpc":"2.0","id":-2,"method":"frobnicate"}
{"jsonrpc":"2.0","id":3,"method":
{"jsonrpc":"2.0","id":4,"method":"shutdown"}
{"jsonrpc":"2.0","id":5,"method":"greet","params":{"name":"never read"}}
`)
	opts := rpc.Options{Inline: func(m string) bool { return true }}
	if err := rpc.Serve(context.Background(), in, os.Stdout, h, opts); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"jsonrpc":"2.0","method":"event","params":{"greeted":"<you>"}}
	// {"jsonrpc":"2.0","id":1,"result":"hello, <you>"}
	// {"jsonrpc":"2.0","id":-2,"error":{"code":-32601,"message":"method not found: frobnicate"}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error at byte 34: unexpected end of input (a message must be one JSON value on one line)","data":{"offset":34,"near":"\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"}}}
	// {"jsonrpc":"2.0","id":4,"result":null}
}

func ExampleError_Is() {
	var err error = rpc.ErrMethodNotFound("x")
	fmt.Println(errors.Is(err, &rpc.Error{Code: rpc.CodeMethodNotFound}))
	fmt.Println(errors.Is(err, &rpc.Error{Code: rpc.CodeInvalidParams}))
	fmt.Println(err)
	// Output:
	// true
	// false
	// jsonrpc error -32601: method not found: x
}
