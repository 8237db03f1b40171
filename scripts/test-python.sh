#!/usr/bin/env bash
# Install and test the Python SDK: sdks/python/.venv (created if missing) with the package
# installed editable plus the pinned test tools, mypy --strict over the package, its tests and
# the conformance adapter, then pytest against the real fsbox binary ($FSBOX_BIN, else built here).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sdk=$repo/sdks/python
py=$sdk/.venv/bin/python

if [ ! -x "$py" ]; then
  "${PYTHON:-python3}" -m venv "$sdk/.venv"
fi
"$py" -m pip install --quiet --disable-pip-version-check -r "$sdk/requirements-dev.txt" -r "$sdk/requirements-integrations.txt" -e "$sdk"

if [ -z "${FSBOX_BIN:-}" ]; then
  bindir=$(mktemp -d)
  trap 'rm -rf "$bindir"' EXIT
  (cd "$repo" && go build -o "$bindir/fsbox" ./cmd/fsbox)
  export FSBOX_BIN=$bindir/fsbox
fi

cd "$sdk"
echo "mypy --strict: sdks/python/src/fsbox, sdks/python/tests"
"$py" -m mypy
echo "mypy --strict: conformance/adapters/python"
MYPYPATH=$repo/conformance/adapters/python "$py" -m mypy --strict "$repo/conformance/adapters/python"
"$py" -m pytest -q -p no:cacheprovider
