"""``goalkeeper report --format html`` rendered by a real browser: headless Chromium loads the
page, and the test reads the DOM after load and a screenshot, not the HTML string.

Chromium is Debian's ``chromium``: installed with apt-get when missing and possible (root, the
package lists refreshed once when an install fails), else the tests skip and say why."""

from __future__ import annotations

import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from tests.cli.proof_session import HOSTILE, run_session

from .. import debian

TITLE = "goalkeeper proof: "


@pytest.fixture(scope="module")
def chromium() -> str:
    """Debian's Chromium, installed when missing (``tests/debian.py``)."""
    return debian.require({"chromium": "chromium"})["chromium"]


def browse(chromium: str, page: Path, *flags: str) -> str:
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            *flags,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class Dom(HTMLParser):
    """What the page holds after load: its title, scripts, elements by id, timeline items."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.scripts = 0
        self.verdict: dict[str, str | None] = {}
        self.timeline_items: list[dict[str, str | None]] = []
        self.text: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self._in_title = tag == "title"
        if tag == "script":
            self.scripts += 1
        if a.get("id") == "verdict":
            self.verdict = a
        if tag == "li" and "data-kind" in a:
            self.timeline_items.append(a)

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        self.text.append(data)


def dom_of(dumped: str) -> Dom:
    dom = Dom()
    dom.feed(dumped)
    return dom


@pytest.fixture
def page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    run_session(project)
    out = tmp_path / "proof.html"
    assert run(["-C", str(project), "report", "--format", "html", "-o", str(out)]) == 0
    capsys.readouterr()
    return out


def test_the_page_loads_with_its_verdict_and_timeline_and_runs_no_hostile_script(
    chromium: str, page: Path, tmp_path: Path
) -> None:
    """After load the DOM has the verdict and every timeline item; the hostile todo subject
    and output tail show as text, and their script never ran (the title is goalkeeper's)."""
    dom = dom_of(browse(chromium, page, "--dump-dom"))
    assert dom.verdict.get("data-state") == "proven"
    kinds = [item.get("data-kind") for item in dom.timeline_items]
    assert "verify_run" in kinds and "goal_complete" in kinds and len(kinds) >= 15
    assert dom.title.startswith(TITLE), dom.title  # the hostile script would set "pwned"
    assert dom.scripts == 0
    assert HOSTILE in "".join(dom.text)  # shown, as text
    # the control: the same markup unescaped does run in this browser, so the check can fail
    control = tmp_path / "control.html"
    control.write_text(f"<html><head><title>x</title></head><body>{HOSTILE}</body></html>")
    assert dom_of(browse(chromium, control, "--dump-dom")).title in ("pwned", "1")


def test_a_screenshot_of_the_page_shows_the_green_verdict(
    chromium: str, page: Path, tmp_path: Path
) -> None:
    """The rendered page is not blank: many colours, and the proven verdict's green."""
    shot = tmp_path / "shot.png"
    browse(chromium, page, "--window-size=1100,900", f"--screenshot={shot}")
    pixels = png_pixels(shot.read_bytes())
    assert len(set(pixels)) > 50
    assert any(abs(r - 0x1F) < 8 and abs(g - 0x88) < 8 and abs(b - 0x3D) < 8 for r, g, b in pixels)


def png_pixels(data: bytes) -> list[tuple[int, int, int]]:
    """The RGB pixels of an 8-bit RGB or RGBA PNG (what Chromium writes), every 7th one."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    pixels: list[tuple[int, int, int]] = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        pixels += [(line[x], line[x + 1], line[x + 2]) for x in range(0, stride, channels * 7)]
        previous = line
    return pixels
