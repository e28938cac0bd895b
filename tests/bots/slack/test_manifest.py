"""The Slack app manifest: the command, the events, Socket Mode, and only the scopes the bot uses."""

from __future__ import annotations

from pathlib import Path

import yaml

MANIFEST = Path(__file__).resolve().parents[3] / "manifests" / "slack" / "manifest.yaml"


def test_manifest_declares_what_the_bot_needs_and_no_more():
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    features, settings = manifest["features"], manifest["settings"]
    assert [c["command"] for c in features["slash_commands"]] == ["/research"]
    assert features["app_home"]["messages_tab_enabled"] is True
    assert features["app_home"]["messages_tab_read_only_enabled"] is False
    assert settings["socket_mode_enabled"] is True
    assert settings["interactivity"]["is_enabled"] is True  # the Cancel and follow-up buttons
    assert sorted(settings["event_subscriptions"]["bot_events"]) == [
        "app_mention", "message.channels", "message.groups", "message.im",
    ]
    assert sorted(manifest["oauth_config"]["scopes"]["bot"]) == [
        "app_mentions:read", "channels:history", "chat:write", "commands", "files:read", "files:write",
        "groups:history", "im:history", "reactions:write", "users:read",
    ]
    assert manifest["display_information"]["name"]
