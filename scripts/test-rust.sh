#!/usr/bin/env bash
# The Rust SDK (sdks/rust) against the built binary, and its conformance adapter built the way
# `fsbox conformance run --target binding:rust` builds it. Crates come from crates.io once, pinned
# by the adapter's committed Cargo.lock (cargo fetch --locked); the tests and the build then run
# offline. Build output goes to $CARGO_TARGET_DIR (default: $TMPDIR/fsbox-cargo-target), never
# into the checkout, and is reused by later runs.
#
#   scripts/test-rust.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${FSBOX_BIN:-$PWD/bin/fsbox}
if [ ! -x "$bin" ]; then
	go build -o "$bin" ./cmd/fsbox
fi
export FSBOX_BIN=$bin
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/fsbox-cargo-target}
manifest=conformance/adapters/rust/Cargo.toml
cargo fetch --locked --manifest-path "$manifest"
# The crate's unit, integration and doc tests, with the adapter's pinned dependency versions.
cargo test --offline --locked --quiet -p fsbox --manifest-path "$manifest"
cargo build --offline --locked --quiet --manifest-path "$manifest"
echo "rust SDK: ok"
