"""Check built wheels the way an installer sees them: the file name's tags match WHEEL's Tag
lines and the platform the binary inside was built for; every RECORD line's hash and size match
the entry; the binary is executable; nothing is missing from or extra to RECORD; the adapter modules
and their first import paths are there.

    python3 packaging/python/check_wheels.py dist/*.whl
"""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile

# The modules users import: the package, each framework adapter in fsbox.integrations, and the
# adapters' first import paths, which re-export them (a wheel missing one breaks an import path).
MODULES = [
    "fsbox/__init__.py",
    "fsbox/integrations/__init__.py",
    *(f"fsbox/integrations/{m}.py" for m in ("pydantic_ai", "langchain", "deepagents")),
    *(f"fsbox/{m}.py" for m in ("pydantic_ai", "langchain", "deepagents")),
]

# The first bytes of a binary for each platform tag family: ELF (with e_machine), Mach-O, PE.
MACHINES = {"x86_64": (b"\x7fELF", 0x3E), "aarch64": (b"\x7fELF", 0xB7)}


def check(path: str) -> list[str]:
    bad: list[str] = []
    name = path.rsplit("/", 1)[-1]
    dist, version, py, abi, plat = name[: -len(".whl")].split("-")
    file_tags = {f"{py}-{abi}-{p}" for p in plat.split(".")}
    with zipfile.ZipFile(path) as zf:
        info = f"{dist}-{version}.dist-info"
        wheel = zf.read(f"{info}/WHEEL").decode()
        tags = {line[5:] for line in wheel.splitlines() if line.startswith("Tag: ")}
        if tags != file_tags:
            bad.append(f"{name}: WHEEL tags {sorted(tags)} differ from the file name's {sorted(file_tags)}")
        if "Root-Is-Purelib: false" not in wheel:
            bad.append(f"{name}: a platform wheel must say Root-Is-Purelib: false")
        recorded = set()
        for line in zf.read(f"{info}/RECORD").decode().splitlines():
            entry, digest, size = line.rsplit(",", 2)
            recorded.add(entry)
            if entry.endswith("/RECORD") or entry not in zf.namelist():
                continue  # an entry missing from the archive is reported below
            data = zf.read(entry)
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if digest != want or int(size) != len(data):
                bad.append(f"{name}: RECORD entry {entry} does not match its content")
        if recorded != set(zf.namelist()):
            bad.append(f"{name}: RECORD and the archive differ: {sorted(recorded ^ set(zf.namelist()))}")
        missing = [m for m in MODULES if m not in zf.namelist()]
        if missing:
            bad.append(f"{name}: modules missing: {missing}")
        exe = "fsbox/bin/fsbox.exe" if "win" in plat else "fsbox/bin/fsbox"
        binary = zf.read(exe)
        mode = zf.getinfo(exe).external_attr >> 16
        if mode & 0o111 != 0o111:
            bad.append(f"{name}: {exe} is not executable (mode {mode:o})")
        for arch, (magic, machine) in MACHINES.items():
            if "linux" in plat and plat.endswith(arch):
                if binary[:4] != magic or int.from_bytes(binary[18:20], "little") != machine:
                    bad.append(f"{name}: {exe} is not an ELF binary for {arch}")
                if b"/lib64/ld-linux" in binary[:4096] or b"/lib/ld-musl" in binary[:4096]:
                    bad.append(f"{name}: {exe} is dynamically linked; a static binary is needed for both manylinux and musllinux")
        if "macosx" in plat and binary[:4] not in (b"\xcf\xfa\xed\xfe",):
            bad.append(f"{name}: {exe} is not a 64-bit Mach-O binary")
        if "win" in plat and binary[:2] != b"MZ":
            bad.append(f"{name}: {exe} is not a PE binary")
    return bad


def main(paths: list[str]) -> int:
    bad = [msg for p in paths for msg in check(p)]
    for msg in bad:
        print("check_wheels:", msg, file=sys.stderr)
    print(f"check_wheels: {len(paths)} wheel(s), {len(bad)} problem(s)")
    return 1 if bad or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
