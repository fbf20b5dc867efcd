"""Where Sudoku Studio keeps its files: the user data folder (run stores, log)."""
from __future__ import annotations

import os
from pathlib import Path


def user_data_dir() -> Path:
    """$SUDOKUSTUDIO_DATA, else $XDG_DATA_HOME/sudokustudio, else ~/.local/share/sudokustudio (created)."""
    explicit = os.environ.get("SUDOKUSTUDIO_DATA")
    if explicit:
        root = Path(explicit)
    else:
        base = os.environ.get("XDG_DATA_HOME")
        root = (Path(base) if base else Path.home() / ".local" / "share") / "sudokustudio"
    root.mkdir(parents=True, exist_ok=True)
    return root


def check_writable(path: str | os.PathLike, what: str = "output file") -> Path:
    """Raise OSError (naming ``what`` and the path) unless ``path`` can be written: its folder
    exists and is writable, and it is not a folder itself nor a read-only file.  Call it before
    a long run, so the run's work is never thrown away for want of a place to put it."""
    p = Path(path)
    if str(path).strip() == "":
        raise OSError(f"{what}: an empty file name")
    if p.is_dir():
        raise OSError(f"{what} {p}: is a folder, not a file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OSError(f"{what} {p}: the folder {parent} does not exist")
    if p.exists():
        if not os.access(p, os.W_OK):
            raise OSError(f"{what} {p}: the file is not writable")
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise OSError(f"{what} {p}: the folder {parent} is not writable")
    return p


_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


class TextEncodingError(ValueError):
    """A text file that cannot be decoded; the message names the file and the encoding problem."""


def decode_text(data: bytes, source: str = "file") -> str:
    """The text of a file's bytes: a BOM (UTF-8, UTF-16, UTF-32) is honoured and dropped;
    without one, UTF-8, else Latin-1 (every byte is a character).  Bytes that look like
    UTF-16 without a BOM (NUL bytes between characters) give a TextEncodingError that
    says so, instead of a puzzle of the wrong length."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(enc)
            except UnicodeDecodeError as e:
                raise TextEncodingError(f"{source}: starts with a {enc.upper()} byte-order mark but is not valid "
                                        f"{enc.upper()} at byte {e.start + len(bom)}") from None
    if b"\x00" in data[:4096]:
        raise TextEncodingError(f"{source}: holds NUL bytes: a UTF-16/UTF-32 file without a byte-order mark, or "
                                f"not a text file; save it as UTF-8 text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")
