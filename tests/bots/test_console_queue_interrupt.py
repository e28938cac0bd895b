"""Ctrl-C while ``ask --queue`` follows a queued research: only the following stops."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

from tests.bots.test_console_queue import env_for
from tests.waiting import LONG


def test_a_ctrl_c_while_following_names_the_command_that_follows_it_again(tmp_path, redis_db):
    env = env_for(tmp_path, redis_db)  # no worker: the research stays queued while the terminal follows it
    ask = subprocess.Popen([sys.executable, "-m", "bots.cli", "ask", "--queue",
                            "How do heat pumps work?"], env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    said = []
    for line in ask.stderr:  # wait for the event, not a time: the line that says it waits for a worker
        said.append(line)
        if line.startswith("queued; waiting for a worker"):
            break
    ask.send_signal(signal.SIGINT)
    _, rest = ask.communicate(timeout=LONG)
    text = "".join(said) + rest
    thread = re.search(r"thread: (console:\S+)", text).group(1)
    assert ask.returncode == 130, text
    assert f"the research goes on on the workers. Follow it with: deepresearch ask --queue --resume {thread}" in text
    assert "Traceback" not in text
