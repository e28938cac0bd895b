"""Build the Teams app package (manifest.json filled from settings, plus icons) as a zip file.

Usage: ``python -m manifests.teams.package [--out build/teams-app.zip] [--version 1.0.1]
[--website-url https://...]``; reads ``MICROSOFT_APP_ID`` and ``DEEPRESEARCH_PUBLIC_URL``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlparse

from bots.teams.settings import load_teams_settings
from engine.settings import SettingsError

MANIFEST_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = Path("build") / "teams-app.zip"
_GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


class PackageError(Exception):
    """A value the package needs is missing or invalid; the message is one line."""


def render_manifest(
    template: str, *, app_id: str, website_url: str, public_url: str | None, version: str = "1.0.0"
) -> dict:
    """Fill the manifest template's ``{{...}}`` placeholders and return the manifest as a dict.

    ``app_id`` is the Azure bot's Microsoft App ID (a GUID; it is both the Teams app id and the
    bot id); ``website_url`` (https) is used for the developer website, privacy and terms
    links; ``public_url``'s host, when given, becomes the one valid domain.

    Raises:
        PackageError: a non-GUID app id, a website URL that is not https, a bad version.
    """
    if not _GUID.match(app_id or ""):
        raise PackageError("MICROSOFT_APP_ID must be the bot's Microsoft App ID (a GUID)")
    if urlparse(website_url or "").scheme != "https":
        raise PackageError("the developer website must be an https URL: set DEEPRESEARCH_PUBLIC_URL or --website-url")
    if not _VERSION.match(version):
        raise PackageError(f"--version must look like 1.0.0, not {version!r}")
    site = website_url.rstrip("/")
    values = {
        "MICROSOFT_APP_ID": app_id.lower(),
        "WEBSITE_URL": site,
        "PRIVACY_URL": site,
        "TERMS_URL": site,
        "PUBLIC_HOST": urlparse(public_url).hostname if public_url else "",
    }
    text = re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: values[m.group(1)], template)
    manifest = json.loads(text)
    manifest["version"] = version
    manifest["validDomains"] = [d for d in manifest.get("validDomains", []) if d]
    return manifest


def build_package(
    out: Path, *, app_id: str, website_url: str, public_url: str | None, version: str = "1.0.0",
    manifest_dir: Path = MANIFEST_DIR,
) -> Path:
    """Write ``out`` (a zip with manifest.json, color.png and outline.png at its root); return it.

    Raises:
        PackageError: see :func:`render_manifest`, or a missing template or icon.
    """
    template = manifest_dir / "manifest.json"
    icons = [manifest_dir / "color.png", manifest_dir / "outline.png"]
    for path in [template, *icons]:
        if not path.is_file():
            raise PackageError(f"missing {path}")
    manifest = render_manifest(
        template.read_text(encoding="utf-8"), app_id=app_id, website_url=website_url,
        public_url=public_url, version=version,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        for icon in icons:
            archive.write(icon, icon.name)
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; prints the zip's path, or one error line and returns 2."""
    parser = argparse.ArgumentParser(prog="python -m manifests.teams.package", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"zip to write (default {DEFAULT_OUT})")
    parser.add_argument("--version", default="1.0.0", help="app version; raise it to update an installed app")
    parser.add_argument("--website-url", default=None, help="https developer/privacy/terms URL (default: public URL)")
    args = parser.parse_args(argv)
    try:
        settings = load_teams_settings()
        if not settings.microsoft_app_id:
            raise PackageError("MICROSOFT_APP_ID is not set (the Azure bot's Microsoft App ID)")
        out = build_package(
            args.out,
            app_id=settings.microsoft_app_id.strip(),
            website_url=args.website_url or settings.public_url or "",
            public_url=settings.public_url,
            version=args.version,
        )
    except (SettingsError, PackageError) as err:
        print(f"teams package: {err}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
