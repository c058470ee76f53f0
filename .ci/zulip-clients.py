"""Drives unmodified Zulip clients against the stack started by .ci/zulip-clients.sh.

zulip-terminal runs in tmux and is driven by key presses; what it does is checked on the server
through the official `zulip` Python client (another user's view), and its screen is captured
after each step. Then the stock bots helloworld, followup and converter must answer a direct
message and an @-mention in a channel.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import zulip

import zulip_checks as checks
from zulip_checks import ok

parser = argparse.ArgumentParser()
parser.add_argument("--venv", required=True)
parser.add_argument("--work", required=True)
parser.add_argument("--artifacts", required=True)
args = parser.parse_args()
WORK = Path(args.work)
ARTIFACTS = Path(args.artifacts)
BIN = Path(args.venv) / "bin"
SESSION = "zulip-term"

owner = zulip.Client(config_file=str(WORK / "owner.zuliprc"))
peer = zulip.Client(config_file=str(WORK / "peer.zuliprc"))
OWNER_ID = owner.get_profile()["user_id"]
PEER_ID = peer.get_profile()["user_id"]


def wait_for(what: str, check, limit: float = 60.0):
    """Polls `check`; a timeout keeps the screen and zulip-terminal's logs."""
    return checks.wait_for(what, check, limit, on_timeout=lambda: (screen("timeout"), keep_logs()))


step_number = 0
TERM_LOGS = (
    "zulip-terminal-tracebacks.log",
    "zulip-terminal-thread-exceptions.log",
    "zulip-terminal-API-requests.log",
    "debug.log",
)


def keep_logs() -> None:
    # What zulip-terminal's first message fetch gets, for diagnosis.
    first = owner.get_messages(
        {"anchor": 0, "num_before": 30, "num_after": 10, "apply_markdown": True,
         "use_first_unread_anchor": True, "client_gravatar": True, "narrow": "[]"}
    )
    (ARTIFACTS / "first-fetch.json").write_text(repr(first))
    for log in TERM_LOGS:
        if (WORK / "term" / log).exists():
            (ARTIFACTS / log).write_text((WORK / "term" / log).read_text())


def screen(name: str = "", keep: bool = True) -> str:
    """The terminal's text, kept as an artefact unless it is one poll of many."""
    global step_number
    text = subprocess.run(
        ["tmux", "capture-pane", "-p", "-t", SESSION], capture_output=True, text=True, check=False
    ).stdout
    if keep:
        step_number += 1
        (ARTIFACTS / f"{step_number:02d}-{name}.txt").write_text(text)
    return text


def shows(text: str):
    return lambda: text in screen(keep=False)


def keys(*pressed: str) -> None:
    subprocess.run(["tmux", "send-keys", "-t", SESSION, *pressed], check=True)


def type_text(text: str) -> None:
    subprocess.run(["tmux", "send-keys", "-t", SESSION, "-l", text], check=True)


def compose_open() -> bool:
    return any(box in screen(keep=False) for box in ("│# general", "│To:"))


def close_compose() -> None:
    """Escape if a compose box is open, then wait for it to go: a key sent right after Escape reads as Alt+key."""
    if compose_open():
        keys("Escape")
        wait_for("the compose box to close", lambda: not compose_open())


def peer_messages(narrow: list) -> list:
    return ok(peer.get_messages({"anchor": "newest", "num_before": 50, "num_after": 0, "narrow": narrow}))[
        "messages"
    ]


def latest_from_owner(narrow: list):
    found = [m for m in peer_messages(narrow) if m["sender_id"] == OWNER_ID]
    return found[-1] if found else None


# --- zulip-terminal -------------------------------------------------------------------------
for old in ARTIFACTS.iterdir():  # screens and logs of an earlier run
    old.unlink()
term_dir = WORK / "term"
term_dir.mkdir()
subprocess.run(
    [
        "tmux", "new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50", "-c", str(term_dir),
        # No autohide: its side panel, shown at start, covers the start of every message line.
        f"{BIN / 'zulip-term'} --config-file {WORK / 'owner.zuliprc'} --no-autohide --debug; sleep 600",
    ],
    check=True,
    env={**os.environ, "TERM": "xterm-256color"},
)
wait_for("zulip-terminal to start and list the channels", lambda: "# general" in screen(keep=False), limit=120)
# A new user's first view holds the Welcome Bot's direct message (as in Zulip; 0.7.0 cannot draw an empty one).
wait_for("the Welcome Bot's message", shows("You and Welcome Bot"))
screen("started")

# A message by another user appears live.
queue = ok(peer.register(event_types=["typing"]))
ok(peer.send_message({"type": "stream", "to": "general", "topic": "welcome", "content": "live from Pat"}))
wait_for("another user's message to appear live", shows("live from Pat"))
screen("live-message")

# A channel message from the terminal.
keys("c")
wait_for("the channel compose box", shows("✗"))  # the empty channel box's mark
type_text("general")
keys("Tab")
type_text("from the terminal")
keys("Tab")
type_text("hello from zulip-terminal")
screen("channel-compose")
keys("C-d")
sent = wait_for("the channel message to arrive", lambda: latest_from_owner([["channel", "general"]]))
assert sent["subject"] == "from the terminal" and "hello from zulip-terminal" in sent["content"], sent
wait_for("the terminal to show its own message", shows("hello from zulip-terminal"))
screen("channel-sent")
close_compose()  # it stays open after sending
# zulip-terminal orders a reloaded view by timestamp (whole seconds) alone, so two messages of one
# second may swap places; the edit below finds the channel message by its place, so the direct
# message goes out in a later second.
wait_for("the next second", lambda: time.time() >= sent["timestamp"] + 1)

# A direct message from the terminal, with typing notifications on the way.
keys("x")
wait_for("the direct message compose box", lambda: "To:" in screen(keep=False))
# The recipient box takes `Name <email>`: the terminal's own autocomplete (ctrl f) fills it in.
type_text("Pat")
keys("C-f")
wait_for("the recipient's autocompletion", shows("Pat Peer <peer@example.com>"))
keys("Tab")
type_text("a private hello")
typing = wait_for(
    "a typing event for Pat",
    lambda: [e for e in ok(peer.get_events(queue_id=queue["queue_id"], last_event_id=-1, dont_block=True))["events"] if e["type"] == "typing"],
)
assert typing[0]["sender"]["user_id"] == OWNER_ID, typing
screen("dm-compose")
keys("C-d")
dm = wait_for("the direct message to arrive", lambda: latest_from_owner([["is", "dm"]]))
assert "a private hello" in dm["content"], dm
wait_for("the terminal to show the direct message", shows("You and Pat Peer"))
screen("dm-sent")
close_compose()

# Edit the channel message: all messages, the newest (the direct message), then the one above it.
keys("a")
keys("End")
keys("Up")
keys("e")
wait_for("the edit box", shows("Also change later messages to this topic"))
keys("End")
type_text(" (edited)")
screen("edit")
keys("C-d")
wait_for(
    "the edit to reach the server",
    lambda: "(edited)" in ok(peer.get_raw_message(sent["id"]))["raw_content"]
    or any("(edited)" in m["content"] for m in peer_messages([["channel", "general"]])),
)
wait_for("the terminal to show the edit", shows("EDITED"))
close_compose()

# React with a thumbs-up to the focused message.
keys("+")
wait_for(
    "the reaction to reach the server",
    lambda: any(r["user_id"] == OWNER_ID for m in peer_messages([["channel", "general"]]) for r in m["reactions"]),
)
wait_for("the terminal to show the reaction", shows(":thumbs_up: You"))
screen("reaction")

# The terminal marks a message read when it takes the focus: move up to Pat's live message.
keys("Up")


def read_by_owner() -> bool:
    mine = ok(owner.get_messages({"anchor": "newest", "num_before": 20, "num_after": 0, "narrow": [["sender", "peer@example.com"]]}))
    return all("read" in m["flags"] for m in mine["messages"])


wait_for("the terminal to mark what it showed as read", read_by_owner)
final = screen("final")
for word in ("Error", "error", "Traceback"):
    if word in final.splitlines()[-1]:
        raise SystemExit(f"zulip-terminal's footer shows an error: {final.splitlines()[-1]}")
for log in ("zulip-terminal-tracebacks.log", "zulip-terminal-thread-exceptions.log"):
    path = term_dir / log
    if path.exists() and path.read_text().strip():
        raise SystemExit(f"zulip-terminal logged exceptions:\n{path.read_text()}")
keep_logs()
keys("C-c")
print("zulip-terminal: started, listed channels, showed a live message, sent a channel and a direct message, typed, edited, reacted, marked read")

# --- reading through the official client: narrows, search and a narrowed queue -------------
dm_queue = ok(peer.register(event_types=["message"], narrow=[["is", "dm"]]))
ok(owner.send_message({"type": "stream", "to": "general", "topic": "search", "content": "quick brown foxes"}))
ok(owner.send_message({"type": "private", "to": ["peer@example.com"], "content": "a fox in private"}))
hits = wait_for("a search to find the channel message", lambda: peer_messages([["channel", "general"], ["search", "fox"]]))
assert '<span class="highlight">foxes</span>' in hits[-1]["match_content"], hits[-1]
assert [m["id"] for m in peer_messages([{"operator": "dm", "operand": [OWNER_ID]}, ["search", "fox"]])], "dm + search"
assert peer_messages([["sender", "me"], ["is", "dm"], ["search", "nothing-like-this"]]) == []
private = wait_for(
    "the narrowed queue's direct message",
    lambda: [e for e in ok(peer.get_events(queue_id=dm_queue["queue_id"], last_event_id=-1, dont_block=True))["events"] if e["type"] == "message"],
)
assert [e["message"]["type"] for e in private] == ["private"], private
print("zulip (Python): search with highlights in channel and direct-message narrows; a queue narrowed to is:dm")

# --- zulip-bots -----------------------------------------------------------------------------
(WORK / "followup.conf").write_text("[followup]\nstream = followup\n")
ok(owner.add_subscriptions([{"name": "followup"}]))
bots = {}
for bot in ("helloworld", "followup", "converter"):
    command = [str(BIN / "zulip-run-bot"), bot, "--config-file", str(WORK / f"{bot}.zuliprc")]
    if bot == "followup":
        command += ["--bot-config-file", str(WORK / "followup.conf")]
    bots[bot] = subprocess.Popen(command, stdout=open(ARTIFACTS / f"bot-{bot}.log", "w"), stderr=subprocess.STDOUT)
try:
    questions = {"helloworld": "hi", "followup": "help", "converter": "12 celsius fahrenheit"}
    answers = {"helloworld": "beep boop", "followup": "follow-up", "converter": "fahrenheit"}
    for bot, question in questions.items():
        bot_client = zulip.Client(config_file=str(WORK / f"{bot}.zuliprc"))
        profile = ok(bot_client.get_profile())
        bot_id, name = profile["user_id"], profile["full_name"]

        def replies(narrow: list) -> bool:
            return any(m["sender_id"] == bot_id and answers[bot] in m["content"] for m in peer_messages(narrow))

        # The bot registers its queue when it starts: retry the question until it answers.
        def ask_direct() -> bool:
            ok(peer.send_message({"type": "direct", "to": [bot_id], "content": question}))
            return wait_quietly(lambda: replies([["is", "dm"]]))

        def ask_mention() -> bool:
            ok(peer.send_message({"type": "stream", "to": "general", "topic": f"ask {bot}", "content": f"@**{name}** {question}"}))
            return wait_quietly(lambda: replies([["channel", "general"], ["topic", f"ask {bot}"]]))

        def wait_quietly(check) -> bool:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                if check():
                    return True
                time.sleep(0.3)
            return False

        wait_for(f"{bot} to answer a direct message", ask_direct, limit=90)
        wait_for(f"{bot} to answer an @-mention in a channel", ask_mention, limit=60)
        print(f"zulip-bots {bot}: answered a direct message and an @-mention")
finally:
    for process in bots.values():
        process.terminate()
        process.wait()
sys.exit(0)
