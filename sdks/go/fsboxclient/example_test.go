package fsboxclient_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fsbox/fsbox/sdks/go/fsboxclient"
)

func Example() {
	root, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644)

	ctx := context.Background()
	c, err := fsboxclient.Start(ctx, fsboxclient.Options{
		RootDir: root,
		OnEvent: func(e fsboxclient.Event) { fmt.Println("event:", e.EventKind()) },
		OnChangeRequest: func(ctx context.Context, req *fsboxclient.ChangeRequest) error {
			if req.Path == "secret.txt" {
				return req.Cancel("not that one")
			}
			return nil // approve
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	r, err := c.ReadFile(ctx, fsboxclient.ReadFileParams{Path: "a.txt"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(r.Text)

	w, err := c.WriteFile(ctx, fsboxclient.WriteFileParams{Path: "secret.txt", Content: "x"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Text)

	_, err = c.WriteFile(ctx, fsboxclient.WriteFileParams{Path: "a.txt", Content: "x", ExpectedHash: new("000000000000")})
	var fe *fsboxclient.Error
	if errors.As(err, &fe) {
		fmt.Println(fe.Kind, fe.IsRetry(), fe.Path)
	}
	// Output:
	// event: file_system.file_read
	// [a.txt | 1 lines | hash:5891b5b522d5]
	//      1	hello
	// ['secret.txt' was not written: not that one]
	// stale_hash true a.txt
}
