"""Which modules a stored port reference may import: the chat surfaces, and packages named by the operator."""

from __future__ import annotations

import pytest

from jobs.port import EXTRA_PORT_PACKAGES_ENV, port_from_reference
from tests.fakes.recording_port import RecordingPort

REF = {"factory": "tests.fakes.recording_port:RecordingPort", "path": "/dev/null", "thread": "x"}


def test_a_port_outside_the_chat_surfaces_is_refused_unless_its_package_is_named(monkeypatch):
    monkeypatch.delenv(EXTRA_PORT_PACKAGES_ENV, raising=False)
    with pytest.raises(ValueError, match="not a chat surface module"):
        port_from_reference(REF)
    with pytest.raises(ValueError, match="not a chat surface module"):
        port_from_reference({"factory": "os:system"})
    monkeypatch.setenv(EXTRA_PORT_PACKAGES_ENV, " tests.fakes. , other.pkg")
    assert isinstance(port_from_reference(REF), RecordingPort)
    with pytest.raises(ValueError, match="not a chat surface module"):  # a prefix of a name is not its package
        port_from_reference({"factory": "tests.fakesX.mod:f"})
