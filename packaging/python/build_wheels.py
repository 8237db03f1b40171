"""Build fsbox's platform wheels: the Python SDK plus the compiled fsbox binary, one wheel per
platform, written byte-for-byte reproducibly.

    python3 packaging/python/build_wheels.py --version 0.1.0 --sdk sdks/python \\
        --binaries dist/bin --out dist

--binaries holds one directory per Go target (linux-amd64/fsbox, windows-amd64/fsbox.exe, ...);
a target without a directory is skipped. Each wheel holds:

- the SDK's package (sdks/python/src/fsbox), unchanged;
- the binary at fsbox/bin/fsbox[.exe], which the SDK's find_binary() picks after binary= and
  $FSBOX_BIN;
- a console script ``fsbox`` (fsbox._cli:main) that execs that binary, so ``pip install`` gives a
  working ``fsbox`` command.

Only the standard library is used (zipfile, hashlib): the wheel format is a zip with three
metadata files, and writing it directly is what makes the bytes a function of the inputs alone
(fixed timestamps from SOURCE_DATE_EPOCH, sorted entries, fixed permissions).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import sys
import time
import zipfile
from pathlib import Path

# Go target -> wheel platform tags. A CGO_ENABLED=0 Go binary is statically linked: it needs no
# glibc symbol at all, so one Linux wheel carries both the manylinux (glibc >= 2.17, the oldest
# pip's manylinux2014 alias covers) and the musllinux tags, as a compressed tag set.
PLATFORMS: dict[str, list[str]] = {
    "linux-amd64": ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_2_x86_64"],
    "linux-arm64": ["manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_2_aarch64"],
    "darwin-amd64": ["macosx_11_0_x86_64"],
    "darwin-arm64": ["macosx_11_0_arm64"],
    "windows-amd64": ["win_amd64"],
}

CLI = '''"""The ``fsbox`` command of a platform wheel: runs the bundled binary with our arguments."""

from __future__ import annotations

import os
import subprocess
import sys

from ._transport import bundled_binary


def main() -> None:
    binary = bundled_binary()
    if binary is None:
        sys.exit("fsbox: error: this fsbox package bundles no binary; install a platform wheel")
    if sys.platform == "win32":
        sys.exit(subprocess.call([binary, *sys.argv[1:]]))
    os.execv(binary, [binary, *sys.argv[1:]])
'''


def _epoch() -> tuple[int, int, int, int, int, int]:
    # Zip timestamps start in 1980; SOURCE_DATE_EPOCH (reproducible-builds.org) sets them.
    stamp = max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)
    return time.gmtime(stamp)[:6]


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def extras(sdk: Path) -> str:
    """Provides-Extra/Requires-Dist lines from sdks/python/pyproject.toml's
    [project.optional-dependencies], so a framework adapter added there (fsbox[pydantic-ai])
    becomes an extra of every wheel without touching this script."""
    import tomllib

    project = tomllib.loads((sdk / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = [f"Requires-Dist: {d}\n" for d in project.get("dependencies", [])]
    for extra, deps in sorted(project.get("optional-dependencies", {}).items()):
        lines.append(f"Provides-Extra: {extra}\n")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"\n' for d in deps]
    return "".join(lines)


def metadata(version: str, readme: str, requires: str = "") -> str:
    return (
        "Metadata-Version: 2.1\n"
        "Name: fsbox\n"
        f"Version: {version}\n"
        "Summary: Sandboxed file tools for agents: the fsbox binary and its typed Python client\n"
        "Requires-Python: >=3.10\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Classifier: Typing :: Typed\n" + requires
        + "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )


def build_wheel(version: str, sdk: Path, binary: Path, tags: list[str], out: Path) -> Path:
    """Write one platform wheel and return its path."""
    exe = "fsbox.exe" if binary.name.endswith(".exe") else "fsbox"
    files: dict[str, tuple[bytes, int]] = {}
    pkg = sdk / "src" / "fsbox"
    for path in sorted(pkg.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files["fsbox/" + path.relative_to(pkg).as_posix()] = (path.read_bytes(), 0o644)
    files["fsbox/_cli.py"] = (CLI.encode(), 0o644)
    files[f"fsbox/bin/{exe}"] = (binary.read_bytes(), 0o755)

    tag = "py3-none-" + ".".join(tags)
    info = f"fsbox-{version}.dist-info"
    readme = (sdk / "README.md").read_text(encoding="utf-8")
    files[f"{info}/METADATA"] = (metadata(version, readme, extras(sdk)).encode(), 0o644)
    wheel = "Wheel-Version: 1.0\nGenerator: fsbox build_wheels.py\nRoot-Is-Purelib: false\n"
    wheel += "".join(f"Tag: py3-none-{t}\n" for t in tags)
    files[f"{info}/WHEEL"] = (wheel.encode(), 0o644)
    files[f"{info}/entry_points.txt"] = (b"[console_scripts]\nfsbox = fsbox._cli:main\n", 0o644)
    record = [_record_line(name, data) for name, (data, _) in files.items()]
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode(), 0o644

    out.mkdir(parents=True, exist_ok=True)
    path = out / f"fsbox-{version}-{tag}.whl"
    date = _epoch()
    with zipfile.ZipFile(path, "w") as zf:
        for name, (data, mode) in files.items():  # RECORD last, as the spec recommends
            zi = zipfile.ZipInfo(name, date)
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3  # Unix, so the mode bits are honoured
            zf.writestr(zi, data, compresslevel=9)
    return path


# The sdist's build backend. An sdist is what pip falls back to where no wheel fits (another OS or
# CPU); rather than install an SDK with no binary, its build says plainly what is needed.
SDIST_BACKEND = '''"""Build backend of the fsbox sdist: refuses to build, saying what to do instead."""

MESSAGE = (
    "fsbox has no wheel for this platform, and building one from source needs Go >= 1.26 and "
    "a checkout of the fsbox repository: run `go build -o bin/fsbox ./cmd/fsbox` there, then "
    "`pip install sdks/python` and set FSBOX_BIN to the built binary. Wheels exist for "
    "linux x86_64/aarch64 (glibc and musl), macOS x86_64/arm64 and Windows amd64."
)


def _refuse(*args, **kwargs):
    raise RuntimeError(MESSAGE)


build_wheel = build_editable = prepare_metadata_for_build_wheel = _refuse


def get_requires_for_build_wheel(config_settings=None):
    return []
'''


def build_sdist(version: str, out: Path) -> Path:
    """Write the sdist: PKG-INFO, a pyproject.toml and the refusing backend, reproducibly."""
    import io
    import tarfile

    base = f"fsbox-{version}"
    pyproject = (
        "[build-system]\nrequires = []\nbuild-backend = \"fsbox_backend\"\nbackend-path = [\"_build\"]\n\n"
        f"[project]\nname = \"fsbox\"\nversion = \"{version}\"\nrequires-python = \">=3.10\"\n"
    )
    pkg_info = metadata(version, "")
    files = {
        f"{base}/PKG-INFO": pkg_info.encode(),
        f"{base}/pyproject.toml": pyproject.encode(),
        f"{base}/_build/fsbox_backend.py": SDIST_BACKEND.encode(),
    }
    stamp = max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name, data in files.items():
            ti = tarfile.TarInfo(name)
            ti.size, ti.mtime, ti.mode, ti.uname, ti.gname = len(data), stamp, 0o644, "", ""
            tf.addfile(ti, io.BytesIO(data))
    import gzip

    path = out / f"{base}.tar.gz"
    with open(path, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=stamp) as gz:
        gz.write(raw.getvalue())
    return path


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--version", required=True)
    ap.add_argument("--sdk", type=Path, required=True)
    ap.add_argument("--binaries", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if not re.fullmatch(r"\d+\.\d+\.\d+([a-z0-9.]*)", a.version):
        ap.error(f"--version {a.version!r} is not a PEP 440 release like 1.2.3")
    built = 0
    for target, tags in PLATFORMS.items():
        d = a.binaries / target
        for exe in ("fsbox", "fsbox.exe"):
            if (d / exe).is_file():
                print(build_wheel(a.version, a.sdk, d / exe, tags, a.out))
                built += 1
    a.out.mkdir(parents=True, exist_ok=True)
    print(build_sdist(a.version, a.out))
    if built == 0:
        print(f"build_wheels: no binaries under {a.binaries}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
