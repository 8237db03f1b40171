// Command silentdiscover runs an MCP server on stdio (its arguments are the server's command line)
// and keeps every server/discover request from it, so the server looks like one of the initialize
// generation only:
//
//	silentdiscover CMD...          drops the request unanswered: a legacy server that ignores
//	                               requests it does not know (the grader's probe must time out and
//	                               fall back, conformance/mcp_protocol.go)
//	silentdiscover -refuse CMD...  answers it with -32601 Method not found, as most legacy servers do
//
// The answer is written before the server has been sent anything, so it cannot interleave with
// the server's own output.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] == "-refuse" && len(os.Args) < 3) {
		fmt.Fprintln(os.Stderr, "usage: silentdiscover [-refuse] COMMAND [ARG...]")
		os.Exit(2)
	}
	args, refuse := os.Args[1:], false
	if args[0] == "-refuse" {
		args, refuse = args[1:], true
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"server/discover"`)) {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if refuse && json.Unmarshal(sc.Bytes(), &req) == nil && req.ID != nil {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", req.ID)
			}
			continue
		}
		in.Write(append(sc.Bytes(), '\n'))
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		os.Exit(1)
	}
}
