"""Binary reads: the hash and a hex preview in text, images and PDFs as typed bytes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import fsbox

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(32))


def test_image_comes_back_as_bytes(root: Path, fsbox_bin: str) -> None:
    (root / "pic.png").write_bytes(PNG)
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")
    with fsbox.Client(root, binary=fsbox_bin) as fs:
        pic = fs.read_file(path="pic.png")
        assert pic.data == PNG and isinstance(pic.data, bytes)
        assert pic.media_type == "image/png"
        assert pic.text.startswith("[pic.png | image/png | 40 bytes | hash:")
        blob = fs.read_file(path="blob.bin")
        assert blob.data is None
        assert blob.hash == hashlib.sha256(b"\x00\x01\x02").hexdigest()[:12]
        assert "00000000  00 01 02\n" in blob.text
        # The typed result goes back to the wire as the server sent it.
        assert fsbox.ReadFileResult.from_wire(pic.to_wire()).data == PNG
