"""Files that start with a byte-order mark, and UTF-16 files (what Windows PowerShell's ``>``
writes, or ``iconv -t UTF-16LE`` without a byte-order mark), read as the text the tool wrote:
once, in :func:`overhead.parsers.decode`.

Each encoded fixture was made from the genuine fixture named beside it (the fixture READMEs
say so): a UTF-8 BOM prepended, the text re-encoded as UTF-16LE with a BOM and CRLF line
ends, or as UTF-16LE/BE without a BOM (``iconv``). The rows must be those of the original,
value for value and line for line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from overhead import parsers

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

#: (tool, encoded fixture, the genuine fixture it was made from, encoding)
CASES = [
    ("fio", "psync-note.bom.json", "psync-note.json", "utf-8-sig"),
    ("dstat", "dstat-cndy.bom.csv", "dstat-cndy.csv", "utf-8-sig"),
    ("iostat", "iostat_x_1_3.bom.txt", "iostat_x_1_3.txt", "utf-8-sig"),
    ("iostat", "iostat_json_x_1_3.bom.json", "iostat_json_x_1_3.json", "utf-8-sig"),
    ("hyperfine", "export_scan.bom.csv", "export_scan.csv", "utf-8-sig"),
    ("iperf3", "tcp.utf16le-crlf.json", "tcp.json", "utf-16"),
    ("sysbench", "v1_cpu.utf16le-crlf.txt", "v1_cpu.txt", "utf-16"),
    ("sysbench", "v1_cpu.utf16le-nobom.txt", "v1_cpu.txt", "utf-16-le"),
    ("iperf3", "tcp.utf16be-nobom.json", "tcp.json", "utf-16-be"),
]

#: the first bytes each encoding's fixture must start with (no BOM: a character, then NUL)
_START = {"utf-8-sig": b"\xef\xbb\xbf", "utf-16": b"\xff\xfe", "utf-16-le": b"s\x00",
          "utf-16-be": b"\x00{"}


@pytest.mark.parametrize(("tool", "encoded", "original", "encoding"), CASES)
def test_encoded_file_gives_the_rows_of_the_original(tool, encoded, original, encoding):
    raw = (FIXTURES / tool / encoded).read_bytes()
    # the fixture really is what its name says: a BOM (or none), then the original's text
    assert raw.startswith(_START[encoding])
    text = raw.decode(encoding)
    assert text.replace("\r\n", "\n") == (FIXTURES / tool / original).read_text()
    got = parsers.parse_file(tool, FIXTURES / tool / encoded, name="x")
    want = parsers.parse_file(tool, FIXTURES / tool / original, name="x")
    assert len(got) > 0
    pd.testing.assert_frame_equal(got, want)
    assert parsers.cut_short_of(got) == parsers.cut_short_of(want)


@pytest.mark.parametrize(("tool", "encoded"), [(c[0], c[1]) for c in CASES])
def test_auto_detection_sees_through_the_encoding(tool, encoded):
    r = subprocess.run([sys.executable, "-m", "overhead.cli", "parse", "auto",
                        str(FIXTURES / tool / encoded)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == f"{FIXTURES / tool / encoded}: detected {tool}"


def test_a_bom_in_a_string_is_dropped_too():
    text = (FIXTURES / "dstat" / "dstat-cndy.csv").read_text()
    pd.testing.assert_frame_equal(parsers.parse_text("dstat", "\ufeff" + text, "x"),
                                  parsers.parse_text("dstat", text, "x"))


@pytest.mark.parametrize(("data", "line", "what"), [
    (b"\xef\xbb\xbfok\n\xff\n", 2, "invalid UTF-8"),
    (b"\xff\xfe" + "a\nb\n".encode("utf-16-le") + b"\x00\xd8", 3,
     "invalid UTF-16 after its byte-order mark"),
    (b"abc\n\x80", 2, "invalid UTF-8"),
])
def test_bytes_that_are_not_text_in_their_encoding_name_the_line(data, line, what):
    with pytest.raises(parsers.ParseError) as info:
        parsers.decode(data, "f.txt")
    assert str(info.value) == f"f.txt:{line}: not a text file ({what})"


def test_utf16_without_a_bom_that_is_not_utf16_names_its_line():
    # the genuine UTF-16LE fixture (no BOM) with half a character appended: its NUL bytes say
    # UTF-16, and the decoding error names the line after its last
    raw = (FIXTURES / "sysbench" / "v1_cpu.utf16le-nobom.txt").read_bytes()
    lines = (FIXTURES / "sysbench" / "v1_cpu.txt").read_text().count("\n")
    with pytest.raises(parsers.ParseError) as info:
        parsers.decode(raw + b"\x00\xd8", "f.txt")
    assert str(info.value) == (f"f.txt:{lines + 1}: not a text file (invalid UTF-16LE without a "
                               "byte-order mark, as its NUL bytes say)")
    # text with no NUL bytes is UTF-8, as before
    assert parsers.decode("s\u00fc\n".encode(), "f") == "s\u00fc\n"
