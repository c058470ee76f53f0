"""Drives unmodified Zulip clients against the stack started by .ci/zulip-clients.sh.

zulip-terminal runs in tmux and is driven by key presses; what it does is checked on the server
through the official `zulip` Python client (another user's view), and its screen is captured
after each step. A second zulip-terminal reads: a person's conversation, Mentions and a search.
Then the official client reads every narrow operator, three narrowed queues and calls each
endpoint stock clients need (issue 40); every answer it gets is kept in answers.jsonl and
validated against Zulip's OpenAPI document by .ci/zulip-schemas.ts. Last, the stock bots
helloworld, followup and converter must answer a direct message and an @-mention in a channel.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
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
SESSION = ""  # the current zulip-terminal's tmux session
TMUX_SOCKET = os.environ.get("ZULIP_CLIENTS_TMUX", "muse-zulip-clients")

owner = zulip.Client(config_file=str(WORK / "owner.zuliprc"))
peer = zulip.Client(config_file=str(WORK / "peer.zuliprc"))
OWNER_ID = owner.get_profile()["user_id"]
PEER_ID = peer.get_profile()["user_id"]


def wait_for(what: str, check, limit: float = 60.0):
    """Polls `check`; a timeout keeps the screen and zulip-terminal's logs."""
    return checks.wait_for(what, check, limit, on_timeout=lambda: (print(screen("timeout"), file=sys.stderr), keep_logs()))


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
        if (term_dir / log).exists():
            (ARTIFACTS / f"{term_dir.name}-{log}").write_text((term_dir / log).read_text())


def tmux(*command: str, check: bool = True, env=None) -> str:
    """A tmux command on this run's own tmux server (the script that started us names its socket)."""
    return subprocess.run(
        ["tmux", "-L", TMUX_SOCKET, *command], capture_output=True, text=True, check=check, env=env
    ).stdout


def screen(name: str = "", keep: bool = True) -> str:
    """The terminal's text, kept as an artefact unless it is one poll of many."""
    global step_number
    text = tmux("capture-pane", "-p", "-t", SESSION, check=False)
    if keep:
        step_number += 1
        (ARTIFACTS / f"{step_number:02d}-{name}.txt").write_text(text)
    return text


def shows(text: str):
    return lambda: text in screen(keep=False)


def keys(*pressed: str) -> None:
    tmux("send-keys", "-t", SESSION, *pressed)


def type_text(text: str) -> None:
    tmux("send-keys", "-t", SESSION, "-l", text)


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
answers = checks.Answers(ARTIFACTS / "answers.jsonl")


def start_terminal(directory: Path) -> None:
    """zulip-terminal as the owner in a new tmux session, its logs in `directory`. The previous
    session goes once the new one runs (the last session's end would stop the tmux server)."""
    global SESSION
    previous, SESSION = SESSION, f"zulip-term-{directory.name}"
    directory.mkdir()
    tmux(
        "new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50", "-c", str(directory),
        # No autohide: its side panel, shown at start, covers the start of every message line.
        f"{BIN / 'zulip-term'} --config-file {WORK / 'owner.zuliprc'} --no-autohide --debug; sleep 600",
        env={**os.environ, "TERM": "xterm-256color"},
    )
    if previous:
        tmux("kill-session", "-t", previous)


term_dir = WORK / "term"
start_terminal(term_dir)
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


def no_errors(text: str) -> None:
    """Neither the footer nor the view shows an error, and zulip-terminal logged no exception."""
    footer = text.rstrip("\n").splitlines()[-1]
    for word in ("Error", "error", "Traceback", "Invalid"):
        if word in footer:
            raise SystemExit(f"zulip-terminal's footer shows an error: {footer}")
    if "Invalid narrow" in text:
        raise SystemExit(f"zulip-terminal shows a narrow error:\n{text}")
    # The footer shows an error for a few seconds only; the terminal's request log keeps each answer's status.
    log = term_dir / "zulip-terminal-API-requests.log"
    refused = [line for line in log.read_text().splitlines() if re.search(r'HTTP/1\.1" [45]\d\d ', line)] if log.exists() else []
    if refused:
        raise SystemExit("zulip-terminal's requests were refused:\n" + "\n".join(refused))
    for log in ("zulip-terminal-tracebacks.log", "zulip-terminal-thread-exceptions.log"):
        path = term_dir / log
        if path.exists() and path.read_text().strip():
            raise SystemExit(f"zulip-terminal logged exceptions:\n{path.read_text()}")


no_errors(final)
keep_logs()
keys("C-c")
print("zulip-terminal: started, listed channels, showed a live message, sent a channel and a direct message, typed, edited, reacted, marked read")

# --- zulip-terminal reading: a person's conversation, mentions, search ------------------------
# zulip-terminal answers a narrow from the messages it already holds when it has any, so what the
# server must answer lies outside its first fetch (the 30 messages before the first unread): a
# direct-message history with Quinn, a mention and a searched word, then 35 newer messages, all read.
quinn = zulip.Client(config_file=str(WORK / "quinn.zuliprc"))
QUINN_ID = ok(quinn.get_profile())["user_id"]
ok(quinn.send_message({"type": "direct", "to": [OWNER_ID], "content": "an old question from Quinn"}))
ok(owner.send_message({"type": "direct", "to": [QUINN_ID], "content": "an old answer for Quinn"}))
ok(peer.send_message({"type": "stream", "to": "general", "topic": "kettle", "content": "@**Olive Owner** please look at the kettle"}))
ok(peer.send_message({"type": "stream", "to": "general", "topic": "music", "content": "who left a xylophone here"}))
for n in range(35):
    ok(peer.send_message({"type": "stream", "to": "general", "topic": "chatter", "content": f"chatter line {n}"}))
ok(owner.mark_all_as_read())

term_dir = WORK / "term-reading"
start_terminal(term_dir)
wait_for("zulip-terminal to start on the newest messages", shows("chatter line 34"), limit=120)
assert "xylophone" not in screen(keep=False), "the searched message is in the first fetch: the search would not reach the server"


def terminal_requests() -> list:
    """The query strings of the terminal's message fetches, from its request log."""
    log = (term_dir / "zulip-terminal-API-requests.log").read_text().splitlines()
    urls = [line.split('"')[1].split(" ")[1] for line in log if '"GET /api/v1/messages?' in line]
    return [dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query)) for url in urls]


def asked_for(narrow: list) -> bool:
    return any(json.loads(query["narrow"]) == narrow for query in terminal_requests())


def shows_alone(wanted: str, *absent: str):
    """The view shows `wanted` and none of `absent` (the messages of the view the terminal left)."""
    return lambda: wanted in (text := screen(keep=False)) and not any(a in text for a in absent)


# Enter on a person in the user list: their conversation, with its history. (Each view below is
# one the terminal has not read yet, so the server answers its narrow.)
keys("w")
# The box takes the focus by clearing its caption (checking for the caption would pass before the key lands).
wait_for("the people search box to take the focus", lambda: "Search [w]:" not in (text := screen(keep=False)) and "━ Users ━" in text)
type_text("Quinn")
wait_for("the people search to keep Quinn alone", lambda: "Quinn Quill" in (text := screen(keep=False)) and "(you)" not in text)
keys("Enter")  # from the search box to the results
wait_for("the search results", shows("Search Results"))
keys("Enter")  # on the person
wait_for(
    "Quinn's conversation with its history",
    shows_alone("an old answer for Quinn", "chatter line", "kettle"),
)
conversation = screen("person")
assert "an old question from Quinn" in conversation and "You and Quinn Quill" in conversation, conversation
assert asked_for([["pm_with", "quinn@example.com"]]), terminal_requests()
no_errors(conversation)
wait_for("the direct message box the terminal opens with it", compose_open)
close_compose()

# `#`: the messages that mention the reader.
keys("#")
wait_for("the Mentions view to show the mention alone", shows_alone("please look at the kettle", "chatter line", "an old answer for Quinn"))
assert "Mentions  Search [/]:" in screen(keep=False)
assert asked_for([["is", "mentioned"]]), terminal_requests()
no_errors(screen("mentions"))

# `/` searches all messages for a word.
# The search narrows the current view: back to all messages first.
keys("a")
wait_for("all messages again", shows("All messages  Search [/]:"))
keys("/")
wait_for("the search box", lambda: "Search [/]:" in screen(keep=False))
type_text("xylophone")
keys("Enter")
wait_for("the search to show the matching message alone", shows_alone("who left a xylophone here", "chatter line"))
no_errors(screen("search"))
# zulip-terminal 0.7.0 draws `content` and ignores `match_content`, so the pane shows no highlight
# (its captured colours would be those of any message); the server's answer to the terminal's own
# request, replayed from its request log, carries the highlight.
query = next((q for q in terminal_requests() if json.loads(q["narrow"]) == [["search", "xylophone"]]), None)
assert query, terminal_requests()
answer = ok(owner.get_messages({**query, "narrow": json.loads(query["narrow"])}))
answers.record("/messages", "get", answer)
assert [m["match_content"] for m in answer["messages"]] == ['<p>who left a <span class="highlight">xylophone</span> here</p>'], answer

keep_logs()
keys("C-c")
print("zulip-terminal: Enter on a person opened their conversation with its history, # showed the mention, / search showed the matching message (its request answers with highlights); no error in the footer")

# --- reading through the official client: every narrow, search, narrowed queues, the new endpoints
# Each answer is kept and validated against Zulip's OpenAPI document at the end (.ci/zulip-schemas.ts).
def read(client, narrow, **extra) -> list:
    """Ids of the messages of a narrow as `client` reads them, oldest first."""
    request = {"anchor": "newest", "num_before": 100, "num_after": 0, "narrow": narrow, **extra}
    return [m["id"] for m in answers.record("/messages", "get", client.get_messages(request))["messages"]]


def refusal(answer: dict) -> dict:
    """An error answer, checked against Zulip's error schema."""
    if answer.get("result") != "error":
        raise SystemExit(f"expected an error, got {answer}")
    return answers.component("CodedError", answer)


def refused(client, narrow) -> tuple:
    answer = refusal(client.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0, "narrow": narrow}))
    return answer.get("code"), answer["msg"]


def send(client, **message) -> int:
    return answers.record("/messages", "post", client.send_message(message))["id"]


def events_of(client, queue: dict, kind: str) -> list:
    got = answers.record("/events", "get", client.get_events(queue_id=queue["queue_id"], last_event_id=-1, dont_block=True))
    return [e for e in got["events"] if e["type"] == kind]


def expect(what: str, got, wanted) -> None:
    if got != wanted:
        raise SystemExit(f"{what}: got {got!r}, wanted {wanted!r}")


def upload(client, name: str, data: bytes) -> str:
    path = WORK / name
    path.write_bytes(data)
    with path.open("rb") as file:
        return answers.record("/user_uploads", "post", client.upload_file(file))["uri"]


# A 1×1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d4944415478da63f8cfc0f01f0005000201a5f4d1a40000000049454e44ae426082"
)

ok(owner.add_subscriptions([{"name": "reading"}], principals=[OWNER_ID, PEER_ID, QUINN_ID]))
ok(quinn.add_subscriptions([{"name": "hideout"}], invite_only=True))
READING_ID = ok(peer.get_stream_id("reading"))["stream_id"]
HIDEOUT_ID = ok(quinn.get_stream_id("hideout"))["stream_id"]
ok(owner.add_alert_words(["zeppelin"]))

# Narrowed queues first, so that every message below is offered to them.
reading_queue = answers.record("/register", "post", peer.register(event_types=["message"], narrow=[["channel", "reading"]]))
dm_queue = answers.record("/register", "post", peer.register(event_types=["message"], narrow=[["is", "dm"]]))
quinn_queue = answers.record("/register", "post", peer.register(event_types=["message"], narrow=[{"operator": "sender", "operand": "quinn@example.com"}]))
# As Zulip, a queue's narrow takes channel, topic, sender and is: terms only.
expect("a queue narrowed to a search", refusal(peer.register(event_types=["message"], narrow=[["search", "zeppelin"]]))["msg"], "Operator search not supported.")

m = {}
m["foxes"] = send(owner, type="stream", to="reading", topic="animals", content="The quick brown foxes jump over the lazy dog")
m["link"] = send(quinn, type="stream", to="reading", topic="✔ deploy", content="Deployed, see https://example.com/notes")
m["mention"] = send(owner, type="stream", to="reading", topic="animals", content="@**Pat Peer** have you fed the foxes?")
m["alert"] = send(peer, type="stream", to="reading", topic="sky", content="a zeppelin overhead")
m["file"] = send(quinn, type="stream", to="reading", topic="files", content=f"[notes.txt]({upload(quinn, 'notes.txt', b'notes')})")
m["image"] = send(quinn, type="stream", to="reading", topic="files", content=f"[dot.png]({upload(quinn, 'dot.png', PNG)})")
m["followed"] = send(quinn, type="stream", to="reading", topic="followed topic", content="worth following")
m["muted"] = send(quinn, type="stream", to="reading", topic="muted topic", content="not worth reading")
m["dm"] = send(owner, type="direct", to=[PEER_ID], content="psst, a private fox")
m["group"] = send(owner, type="direct", to=[PEER_ID, QUINN_ID], content="hello group")
m["secret"] = send(quinn, type="stream", to="hideout", topic="t", content="hidden pizza")
m["edited"] = send(owner, type="stream", to="reading", topic="edits", content="the original wording")
answers.record("/messages/{message_id}", "patch", owner.update_message({"message_id": m["edited"], "content": "the revised wording"}))
answers.record("/messages/flags", "post", peer.update_message_flags({"messages": [m["foxes"]], "op": "add", "flag": "starred"}))
answers.record("/messages/{message_id}/reactions", "post", peer.add_reaction({"message_id": m["dm"], "emoji_name": "smile"}))
answers.record("/messages/flags", "post", peer.update_message_flags({"messages": [m["link"]], "op": "add", "flag": "read"}))
for topic, policy in (("followed topic", 3), ("muted topic", 1)):
    answers.record("/user_topics", "post", peer.call_endpoint(url="user_topics", method="POST", request={"stream_id": READING_ID, "topic": topic, "visibility_policy": policy}))

in_reading = [["channel", "reading"]]
channel_ids = [m[k] for k in ("foxes", "link", "mention", "alert", "file", "image", "followed", "muted", "edited")]
expect("channel by name", read(peer, in_reading), channel_ids)
expect("channel by id", read(peer, [["channel", READING_ID]]), channel_ids)
expect("stream (legacy name), dict form", read(peer, [{"operator": "stream", "operand": "reading"}]), channel_ids)
expect("topic", read(peer, in_reading + [["topic", "animals"]]), [m["foxes"], m["mention"]])
expect("subject (legacy name)", read(peer, in_reading + [["subject", "files"]]), [m["file"], m["image"]])
expect("sender by email", read(peer, in_reading + [["sender", "quinn@example.com"]]), [m["link"], m["file"], m["image"], m["followed"], m["muted"]])
expect("sender by id", read(peer, in_reading + [["sender", OWNER_ID]]), [m["foxes"], m["mention"], m["edited"]])
expect("sender me", read(peer, in_reading + [["sender", "me"]]), [m["alert"]])
expect("negated sender", read(peer, in_reading + [{"operator": "sender", "operand": "quinn@example.com", "negated": True}]), [m["foxes"], m["mention"], m["alert"], m["edited"]])
owner_dms = read(peer, [["dm", "owner@example.com"]])
expect("dm by email", owner_dms[-1:], [m["dm"]])
expect("dm by ids", read(peer, [{"operator": "dm", "operand": [OWNER_ID]}]), owner_dms)
expect("pm-with (legacy name)", read(peer, [["pm-with", "owner@example.com"]]), owner_dms)
expect("pm_with (zulip-terminal's spelling)", read(peer, [["pm_with", "owner@example.com"]]), owner_dms)
expect("dm of a group by emails", read(peer, [["dm", "owner@example.com,quinn@example.com"]]), [m["group"]])
expect("dm of a group by ids", read(peer, [{"operator": "dm", "operand": [OWNER_ID, QUINN_ID]}]), [m["group"]])
expect("dm-including by id", read(peer, [{"operator": "dm-including", "operand": QUINN_ID}]), [m["group"]])
expect("group-pm-with (legacy name)", read(peer, [["group-pm-with", "quinn@example.com"]]), [m["group"]])
pat_dms = read(peer, [["is", "dm"]])
assert m["dm"] in pat_dms and m["group"] in pat_dms and not set(pat_dms) & set(channel_ids), pat_dms
expect("is:private", read(peer, [["is", "private"]]), pat_dms)
expect("is:starred", read(peer, in_reading + [["is", "starred"]]), [m["foxes"]])
expect("is:mentioned", read(peer, in_reading + [["is", "mentioned"]]), [m["mention"]])
expect("is:alerted", read(owner, in_reading + [["is", "alerted"]]), [m["alert"]])
expect("is:unread", read(peer, in_reading + [["is", "unread"], ["sender", "quinn@example.com"]]), [m["file"], m["image"], m["followed"], m["muted"]])
expect("is:resolved", read(peer, in_reading + [["is", "resolved"]]), [m["link"]])
expect("is:followed", read(peer, in_reading + [["is", "followed"]]), [m["followed"]])
expect("is:muted", read(peer, in_reading + [["is", "muted"]]), [m["muted"]])
expect("has:link", read(peer, in_reading + [["has", "link"]]), [m["link"], m["file"], m["image"]])
expect("has:attachment", read(peer, in_reading + [["has", "attachment"]]), [m["file"], m["image"]])
expect("has:image", read(peer, in_reading + [["has", "image"]]), [m["image"]])
expect("has:reaction", read(peer, [{"operator": "dm", "operand": [OWNER_ID]}, ["has", "reaction"]]), [m["dm"]])
expect("id", read(peer, [["id", m["alert"]]]), [m["alert"]])
expect("near (the anchor places the view)", read(peer, in_reading + [["near", m["alert"]]], anchor=m["alert"], num_before=1, num_after=1), [m["mention"], m["alert"], m["file"]])
expect("with: the conversation of a message", read(peer, [["with", m["mention"]]]), [m["foxes"], m["mention"]])
expect("channels:public", read(quinn, [["channels", "public"], ["topic", "t"]]), [])
expect("streams:public (legacy name)", read(peer, [["streams", "public"], ["topic", "animals"]]), [m["foxes"], m["mention"]])
found = answers.record("/messages", "get", peer.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0, "narrow": in_reading + [["search", "fox"]]}))["messages"]
expect("search for a word (stemmed)", [x["id"] for x in found], [m["foxes"], m["mention"]])
assert '<span class="highlight">foxes</span>' in found[0]["match_content"], found[0]
expect("search for a phrase", read(peer, [["search", '"quick brown"']]), [m["foxes"]])
topic_hits = answers.record("/messages", "get", peer.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0, "narrow": [["search", "deploy"]]}))["messages"]
expect("search in topics", [x["id"] for x in topic_hits], [m["link"]])
assert '<span class="highlight">deploy</span>' in topic_hits[0]["match_subject"], topic_hits[0]
expect("an edited message by its new words", read(peer, [["search", "revised"]]), [m["edited"]])
expect("an edited message not by its old words", read(peer, [["search", "original"]]), [])
expect("search in direct messages", read(peer, [{"operator": "dm", "operand": [OWNER_ID]}, ["search", "fox"]]), [m["dm"]])
expect("a private channel is not read through a search", read(peer, [["search", "pizza"]]), [])

# Anchors: include_anchor, message_ids, anchor_date.
expect("include_anchor false", read(peer, in_reading, anchor=m["alert"], num_before=1, num_after=1, include_anchor=False), [m["mention"], m["file"]])
by_ids = answers.record("/messages", "get", peer.get_messages({"message_ids": json.dumps([m["alert"], m["foxes"], m["secret"]])}))
expect("message_ids (those the reader may read)", sorted(x["id"] for x in by_ids["messages"]), [m["foxes"], m["alert"]])
alert_time = ok(peer.get_raw_message(m["alert"]))["message"]["timestamp"]
date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(alert_time))
dated = read(peer, in_reading, anchor="date", anchor_date=date, num_before=0, num_after=1)
assert dated and dated[0] <= m["alert"], (dated, m["alert"])

# Zulip's errors; a private channel answers as one that does not exist.
expect("unknown operator", refused(peer, [["bogus", "x"]]), ("BAD_NARROW", "Invalid narrow operator: unknown operator"))
expect("unknown is: operand", refused(peer, [["is", "shiny"]]), ("BAD_NARROW", "Invalid narrow operator: unknown 'is' operand"))
expect("unknown has: operand", refused(peer, [["has", "cats"]]), ("BAD_NARROW", "Invalid narrow operator: unknown 'has' operand"))
expect("unknown user", refused(peer, [["sender", "nobody@example.com"]]), ("BAD_NARROW", "Invalid narrow operator: unknown user"))
missing = refused(peer, [["channel", "no-such-channel"]])
expect("unknown channel", missing[0], "BAD_NARROW")
expect("a private channel the reader cannot see", refused(peer, [["channel", "hideout"]]), missing)

# The other readers of a narrow: matches_narrow and flags/narrow.
matches = answers.record("/messages/matches_narrow", "get", peer.check_messages_match_narrow(msg_ids=[m["foxes"], m["link"], m["dm"]], narrow=[["search", "fox"]]))
expect("matches_narrow", sorted(int(k) for k in matches["messages"]), [m["foxes"], m["dm"]])
assert "highlight" in matches["messages"][str(m["foxes"])]["match_content"], matches
flagged = answers.record("/messages/flags/narrow", "post", peer.call_endpoint(url="messages/flags/narrow", method="POST", request={
    "anchor": "oldest", "num_before": 0, "num_after": 100, "narrow": json.dumps(in_reading + [["topic", "files"]]), "op": "add", "flag": "read"}))
expect("flags/narrow", (flagged["processed_count"], flagged["updated_count"]), (2, 2))
expect("flags/narrow marked them read", read(peer, in_reading + [["topic", "files"], ["is", "unread"]]), [])

# The narrowed queues got their messages and no others.
def queued(queue: dict) -> list:
    return [e["message"]["id"] for e in events_of(peer, queue, "message")]


got = wait_for("the channel-narrowed queue's messages", lambda: len(ids := queued(reading_queue)) >= len(channel_ids) and ids)
expect("a queue narrowed to a channel", got, channel_ids)
expect("a queue narrowed to is:dm", queued(dm_queue), [m["dm"], m["group"]])
expect("a queue narrowed to a sender", queued(quinn_queue), [m["link"], m["file"], m["image"], m["followed"], m["muted"]])
print("zulip (Python): every narrow operator, negation, both forms, Zulip's errors, include_anchor, message_ids, anchor_date, search with highlights, matches_narrow, flags/narrow, three narrowed queues (channel, is:dm, sender)")
# --- the endpoints stock clients call ----------------------------------------------------------
leaver = zulip.Client(config_file=str(WORK / "leaver.zuliprc"))
LEAVER_ID = ok(leaver.get_profile())["user_id"]

# A message's client is the sending app's name.
expect("client of a message sent by zulip-terminal", sent["client"], "ZulipTerminal")
expect("client of a message sent by the Python client", ok(peer.get_raw_message(m["alert"]))["message"]["client"], "ZulipPython")

# Channel subscribers and subscription status.
members = answers.record("/streams/{stream_id}/members", "get", peer.get_subscribers(stream="reading"))
expect("channel subscribers", sorted(members["subscribers"]), sorted([OWNER_ID, PEER_ID, QUINN_ID]))
subscribed = answers.record("/users/{user_id}/subscriptions/{stream_id}", "get", peer.get_subscription_status(user_id=QUINN_ID, stream_id=READING_ID))
expect("subscription status", subscribed["is_subscribed"], True)
not_subscribed = answers.record("/users/{user_id}/subscriptions/{stream_id}", "get", peer.get_subscription_status(user_id=LEAVER_ID, stream_id=READING_ID))
expect("subscription status of a non-subscriber", not_subscribed["is_subscribed"], False)
refusal(peer.get_subscription_status(user_id=QUINN_ID, stream_id=HIDEOUT_ID))

# Linkifiers: create, edit, reorder, list, applied by the renderer (preview and sent), delete.
issue = answers.record("/realm/filters", "post", owner.add_realm_filter("#(?P<id>[0-9]+)", "https://tracker.example.com/issues/{id}"))
git = answers.record("/realm/filters", "post", owner.add_realm_filter("GH-(?P<id>[0-9]+)", "https://git.example.com/{id}"))
answers.record("/realm/filters/{filter_id}", "patch", owner.call_endpoint(url=f"realm/filters/{git['id']}", method="PATCH", request={"pattern": "GH(?P<id>[0-9]+)", "url_template": "https://git.example.com/commits/{id}"}))
answers.record("/realm/linkifiers", "patch", owner.call_endpoint(url="realm/linkifiers", method="PATCH", request={"ordered_linkifier_ids": json.dumps([git["id"], issue["id"]])}))
listed = answers.record("/realm/linkifiers", "get", peer.get_realm_linkifiers())["linkifiers"]
expect("linkifiers, edited and reordered", [(x["id"], x["pattern"]) for x in listed], [(git["id"], "GH(?P<id>[0-9]+)"), (issue["id"], "#(?P<id>[0-9]+)")])
rendered = answers.record("/messages/render", "post", peer.render_message({"content": "**bold**, see #42"}))["rendered"]
assert "<strong>bold</strong>" in rendered and 'href="https://tracker.example.com/issues/42"' in rendered, rendered
linked = send(peer, type="stream", to="reading", topic="links", content="fixed in GH7")
linked_html = answers.record("/messages", "get", peer.get_messages({"anchor": linked, "num_before": 0, "num_after": 0, "narrow": [["id", linked]]}))["messages"][0]["content"]
assert 'href="https://git.example.com/commits/7"' in linked_html, linked_html
answers.record("/realm/filters/{filter_id}", "delete", owner.remove_realm_filter(git["id"]))
answers.record("/realm/filters/{filter_id}", "delete", owner.remove_realm_filter(issue["id"]))
expect("linkifiers after deleting", answers.record("/realm/linkifiers", "get", peer.get_realm_linkifiers())["linkifiers"], [])

# User status: set, read, its event, /register state.
status_queue = answers.record("/register", "post", peer.register(event_types=["user_status"]))
answers.record("/users/me/status", "post", quinn.call_endpoint(url="users/me/status", method="POST", request={"status_text": "on vacation", "emoji_name": "palm_tree"}))
status = answers.record("/users/{user_id}/status", "get", peer.call_endpoint(url=f"users/{QUINN_ID}/status", method="GET"))["status"]
expect("user status", (status.get("status_text"), status.get("emoji_name")), ("on vacation", "palm_tree"))
event = wait_for("the user_status event", lambda: events_of(peer, status_queue, "user_status"))[-1]
expect("user_status event", (event["user_id"], event.get("status_text")), (QUINN_ID, "on vacation"))
state = answers.record("/register", "post", peer.register(fetch_event_types=["user_status"]))
expect("user_status in /register", state["user_status"][str(QUINN_ID)].get("status_text"), "on vacation")

# Muted users: a muted user's new messages arrive read; event and /register state; then unmuted.
muted_queue = answers.record("/register", "post", peer.register(event_types=["muted_users"]))
answers.record("/users/me/muted_users/{muted_user_id}", "post", peer.call_endpoint(url=f"users/me/muted_users/{QUINN_ID}", method="POST"))
hushed = send(quinn, type="stream", to="reading", topic="hushed", content="said by a muted user")
hushed_flags = answers.record("/messages", "get", peer.get_messages({"anchor": hushed, "num_before": 0, "num_after": 0, "narrow": [["id", hushed]]}))["messages"][0]["flags"]
assert "read" in hushed_flags, hushed_flags
event = wait_for("the muted_users event", lambda: events_of(peer, muted_queue, "muted_users"))[-1]
expect("muted_users event", [x["id"] for x in event["muted_users"]], [QUINN_ID])
state = answers.record("/register", "post", peer.register(fetch_event_types=["muted_users"]))
expect("muted_users in /register", [x["id"] for x in state["muted_users"]], [QUINN_ID])
answers.record("/users/me/muted_users/{muted_user_id}", "delete", peer.call_endpoint(url=f"users/me/muted_users/{QUINN_ID}", method="DELETE"))

# Read receipts: who read a message (not its sender).
answers.record("/messages/flags", "post", peer.update_message_flags({"messages": [m["foxes"]], "op": "add", "flag": "read"}))
receipts = answers.record("/messages/{message_id}/read_receipts", "get", owner.call_endpoint(url=f"messages/{m['foxes']}/read_receipts", method="GET"))
assert PEER_ID in receipts["user_ids"] and OWNER_ID not in receipts["user_ids"], receipts

# Default channels.
answers.record("/default_streams", "post", owner.add_default_stream(READING_ID))
state = answers.record("/register", "post", peer.register(fetch_event_types=["default_streams"]))
assert READING_ID in [x if isinstance(x, int) else x["stream_id"] for x in state["realm_default_streams"]], state
answers.record("/default_streams", "delete", owner.call_endpoint(url="default_streams", method="DELETE", request={"stream_id": READING_ID}))

# A user group renamed and described (PATCH /user_groups/{id}).
answers.record("/user_groups/create", "post", owner.create_user_group({"name": "readers", "description": "who reads", "members": [PEER_ID, QUINN_ID]}))
group_id = next(g["id"] for g in answers.record("/user_groups", "get", peer.get_user_groups())["user_groups"] if g["name"] == "readers")
answers.record("/user_groups/{user_group_id}", "patch", owner.update_user_group({"group_id": group_id, "name": "keen readers", "description": "who reads a lot"}))
group = next(g for g in answers.record("/user_groups", "get", peer.get_user_groups())["user_groups"] if g["id"] == group_id)
expect("the patched group", (group["name"], group["description"]), ("keen readers", "who reads a lot"))

# Typing while editing a message.
typing_queue = answers.record("/register", "post", peer.register(event_types=["typing_edit_message"]))
answers.record("/messages/{message_id}/typing", "post", owner.call_endpoint(url=f"messages/{m['foxes']}/typing", method="POST", request={"op": "start"}))
event = wait_for("the typing_edit_message event", lambda: events_of(peer, typing_queue, "typing_edit_message"))[-1]
expect("typing_edit_message event", (event["message_id"], event["sender_id"], event["op"]), (m["foxes"], OWNER_ID, "start"))

# The legacy notification settings endpoint (Zulip's document no longer describes it: its success shape).
answers.component("JsonSuccess", ok(peer.update_notification_settings({"enable_sounds": False})))
state = answers.record("/register", "post", peer.register(fetch_event_types=["user_settings"]))
expect("a legacy notification setting", state["user_settings"]["enable_sounds"], False)

# DELETE /users/me: the account is deactivated.
answers.record("/users/me", "delete", leaver.call_endpoint(url="users/me", method="DELETE"))
expect("the account that left", ok(owner.get_user_by_id(LEAVER_ID))["user"]["is_active"], False)
print("zulip (Python): client names, subscribers and subscription status, linkifiers (create, edit, reorder, render, delete), user status, muted users, read receipts, default channels, PATCH /user_groups, edit typing, /settings/notifications, DELETE /users/me")

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
