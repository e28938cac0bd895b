"""The Teams app package: manifest contents, icons, and the zip built by ``python -m manifests.teams.package``."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from manifests.teams.package import MANIFEST_DIR, PackageError, render_manifest
from tests.waiting import LONG

APP_ID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
ROOT = Path(__file__).resolve().parents[3]


def _png_rgba(path: Path) -> tuple[int, int, list[bytes]]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert (depth, color) == (8, 6)  # 8-bit RGBA
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * 4 + 1
    rows = [raw[i * stride + 1:(i + 1) * stride] for i in range(height)]
    assert all(raw[i * stride] == 0 for i in range(height))  # filter "none", as written
    return width, height, rows


def test_icons_have_teams_sizes():
    width, height, rows = _png_rgba(MANIFEST_DIR / "color.png")
    assert (width, height) == (192, 192)
    assert all(row[3::4] == b"\xff" * 192 for row in rows)  # opaque
    width, height, rows = _png_rgba(MANIFEST_DIR / "outline.png")
    assert (width, height) == (32, 32)
    alphas = b"".join(row[3::4] for row in rows)
    assert alphas[0] == 0 and max(alphas) == 255  # transparent background, visible glyph
    assert all(row[i] == 255 for row in rows for i in range(0, 128, 4) if row[i + 3])  # white only


def test_manifest_template():
    manifest = render_manifest(
        (MANIFEST_DIR / "manifest.json").read_text(), app_id=APP_ID,
        website_url="https://bot.example.com", public_url="https://bot.example.com",
    )
    assert manifest["id"] == APP_ID
    (bot,) = manifest["bots"]
    assert bot["botId"] == APP_ID
    assert set(bot["scopes"]) == {"personal", "team", "groupChat"}
    assert bot["supportsFiles"] is True
    titles = {c["title"] for cl in bot["commandLists"] for c in cl["commands"]}
    assert titles == {"research", "status", "help"}
    assert manifest["validDomains"] == ["bot.example.com"]
    # least privilege: the bot reads no user profile and opens no chat with team members on its own
    assert "permissions" not in manifest and "webApplicationInfo" not in manifest
    assert "authorization" not in manifest
    assert manifest["icons"] == {"color": "color.png", "outline": "outline.png"}
    assert len(manifest["description"]["short"]) <= 80
    assert "{{" not in json.dumps(manifest)


@pytest.mark.parametrize("app_id,site", [("not-a-guid", "https://x.example"), (APP_ID, "http://x.example"),
                                         (APP_ID, "")])
def test_manifest_refuses_bad_values(app_id, site):
    with pytest.raises(PackageError):
        render_manifest((MANIFEST_DIR / "manifest.json").read_text(), app_id=app_id, website_url=site,
                        public_url=None)


def test_package_command(tmp_path, clean_env):
    env = {"PATH": "/usr/bin:/bin", "MICROSOFT_APP_ID": APP_ID, "DEEPRESEARCH_PUBLIC_URL": "https://bot.example.com",
           "HOME": str(tmp_path)}
    out = tmp_path / "teams-app.zip"
    done = subprocess.run([sys.executable, "-m", "manifests.teams.package", "--out", str(out), "--version", "1.0.3"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=LONG)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["color.png", "manifest.json", "outline.png"]
        manifest = json.loads(archive.read("manifest.json"))
    assert manifest["version"] == "1.0.3" and manifest["bots"][0]["botId"] == APP_ID
    env.pop("MICROSOFT_APP_ID")
    done = subprocess.run([sys.executable, "-m", "manifests.teams.package", "--out", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=LONG)
    assert done.returncode == 2
    assert done.stderr.strip() == "teams package: MICROSOFT_APP_ID is not set (the Azure bot's Microsoft App ID)"
