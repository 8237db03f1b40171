package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// rustAdapter is the command of the Rust binding's adapter and the step that builds it: cargo
// build --locked (the adapter's Cargo.lock is committed) into $CARGO_TARGET_DIR, or a directory
// under the system temp dir, so no build output lands in the checkout and later runs reuse it.
// The crates come from crates.io once (cargo fetch); a machine without the network needs them in
// cargo's cache already.
func rustAdapter(repo, adapters string) ([]string, func() error, error) {
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		return nil, nil, errors.New("binding:rust: cargo is not on PATH; install a Rust toolchain (rustup.rs) to grade the Rust binding")
	}
	target := os.Getenv("CARGO_TARGET_DIR")
	if target == "" {
		target = filepath.Join(os.TempDir(), "fsbox-cargo-target")
	}
	manifest := filepath.Join(adapters, "Cargo.toml")
	exe := filepath.Join(target, "debug", "fsbox-conformance-adapter")
	prepare := func() error {
		cmd := exec.Command(cargo, "build", "--quiet", "--locked", "--manifest-path", manifest)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+target)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("binding:rust: building the adapter (cargo build --locked --manifest-path conformance/adapters/rust/Cargo.toml) failed:\n%s", b)
		}
		return nil
	}
	return []string{exe}, prepare, nil
}
