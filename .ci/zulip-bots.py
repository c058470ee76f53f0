"""Drives Zulip's bot ecosystem, unmodified, against the stack started by .ci/zulip-bots.sh.

Bots are created over the API (POST /bots). Stock zulip-bots keep their state in /bot_storage:
incrementor counts mentions and edits its own reply, virtual_fs keeps a file system, tictactoe
a user cache. zulip-botserver serves helloworld and followup behind outgoing-webhook bots, so a
mention goes Muse → worker → bot server → Muse. The `zulip` package's upload-file example
uploads a file whose link then downloads for a member and is refused to an outsider.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import requests
import zulip

from zulip_checks import ok, wait_for

parser = argparse.ArgumentParser()
parser.add_argument("--venv", required=True)
parser.add_argument("--work", required=True)
parser.add_argument("--artifacts", required=True)
parser.add_argument("--site", required=True)
parser.add_argument("--botserver-port", required=True)
args = parser.parse_args()
WORK = Path(args.work)
ARTIFACTS = Path(args.artifacts)
BIN = Path(args.venv) / "bin"
SITE_PACKAGES = next((Path(args.venv) / "lib").glob("python3*/site-packages"))

owner = zulip.Client(config_file=str(WORK / "owner.zuliprc"))
peer = zulip.Client(config_file=str(WORK / "peer.zuliprc"))
outsider = zulip.Client(config_file=str(WORK / "outsider.zuliprc"))
processes: list = []


def within(seconds: float, check):
    """`check`'s first truthy value within `seconds`, else None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    return None


def create_bot(short_name: str, full_name: str, **extra) -> dict:
    """POST /bots as the owner; returns the bot's id, email and key, and writes its zuliprc."""
    created = ok(owner.call_endpoint("bots", method="POST", request={"full_name": full_name, "short_name": short_name, **extra}))
    listed = ok(owner.call_endpoint("bots", method="GET"))["bots"]
    email = next(b["username"] for b in listed if b["api_key"] == created["api_key"])
    path = WORK / f"{short_name}.zuliprc"
    path.write_text(f"[api]\nemail={email}\nkey={created['api_key']}\nsite={args.site}\n")
    os.chmod(path, 0o600)
    return {"id": created["user_id"], "email": email, "key": created["api_key"], "name": full_name, "zuliprc": path}


def start(name: str, command: list, env: dict | None = None) -> subprocess.Popen:
    log = open(ARTIFACTS / f"{name}.log", "w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    processes.append(process)
    return process


def messages(client, narrow: list) -> list:
    return ok(client.get_messages({"anchor": "newest", "num_before": 50, "num_after": 0, "narrow": narrow, "apply_markdown": False}))["messages"]


def ask(bot: dict, question: str, answer, narrow: list, send) -> dict:
    """Sends `question` until the bot's reply matching `answer` (a regex) appears: it registers its queue after it starts."""
    seen = {m["id"] for m in messages(peer, narrow)}

    def reply():
        for m in messages(peer, narrow):
            if m["sender_id"] == bot["id"] and m["id"] not in seen and re.search(answer, m["content"]):
                return m
        return None

    def attempt():
        send(question)
        return within(5, reply)

    return wait_for(f"{bot['name']} to answer {question!r}", attempt, limit=90)


def direct(bot: dict):
    return lambda content: ok(peer.send_message({"type": "direct", "to": [bot["id"]], "content": content}))


def dm_narrow(bot: dict) -> list:
    return [["is", "dm"]]


# --- stateful stock bots through /bot_storage ------------------------------------------------
ok(owner.add_subscriptions([{"name": "bots"}]))
ok(peer.add_subscriptions([{"name": "bots"}]))
incrementor = create_bot("incrementor", "Incrementor")
virtual_fs = create_bot("virtualfs", "Virtual FS")
tictactoe = create_bot("tictactoe", "Tic Tac Toe")
for bot, name in ((incrementor, "incrementor"), (virtual_fs, "virtual_fs"), (tictactoe, "tictactoe")):
    # A bot hears channel messages only where it is subscribed.
    ok(zulip.Client(config_file=str(bot["zuliprc"])).add_subscriptions([{"name": "bots"}]))
    start(f"bot-{name}", [str(BIN / "zulip-run-bot"), name, "--config-file", str(bot["zuliprc"])])

try:
    topic = [["channel", "bots"], ["topic", "counting"]]
    mention = lambda content: ok(peer.send_message({"type": "stream", "to": "bots", "topic": "counting", "content": f"@**{incrementor['name']}** {content}"}))
    first = ask(incrementor, "count", r"^\d+$", topic, mention)
    count = int(first["content"])
    mention("count again")
    wait_for(
        "incrementor to edit its reply",
        lambda: ok(peer.get_raw_message(first["id"]))["raw_content"] == str(count + 1),
    )
    stored = ok(zulip.Client(config_file=str(incrementor["zuliprc"])).get_storage({"keys": ["number", "message_id"]}))["storage"]
    assert stored == {"number": str(count + 1), "message_id": str(first["id"])}, stored
    print(f"zulip-bots incrementor: counted to {count + 1} in /bot_storage and edited its own reply")

    ask(virtual_fs, "cd /", r"Current path: /", dm_narrow(virtual_fs), direct(virtual_fs))
    for command, answer in (("mkdir home", "directory created"), ("write /home/notes hello world", "file written"), ("read /home/notes", "hello world")):
        ask(virtual_fs, command, re.escape(answer), dm_narrow(virtual_fs), direct(virtual_fs))
    vfs_storage = ok(zulip.Client(config_file=str(virtual_fs["zuliprc"])).get_storage())["storage"]
    assert any("notes" in value for value in vfs_storage.values()), vfs_storage
    print("zulip-bots virtual_fs: made a directory, wrote and read a file kept in /bot_storage")

    ask(tictactoe, "register", r"Thanks for registering", dm_narrow(tictactoe), direct(tictactoe))
    ttt_storage = ok(zulip.Client(config_file=str(tictactoe["zuliprc"])).get_storage({"keys": ["users"]}))["storage"]
    assert "peer@example.com" in ttt_storage["users"], ttt_storage
    print("zulip-bots tictactoe: registered a player in its user cache in /bot_storage")
finally:
    for process in processes:
        process.terminate()
        process.wait()
    processes.clear()

# --- zulip-botserver behind outgoing-webhook bots -------------------------------------------
BOTSERVER = f"http://127.0.0.1:{args.botserver_port}/"
served = {}
for name, full_name in (("helloworld", "Hello World"), ("followup", "Follow Up")):
    served[name] = create_bot(f"{name}hook", full_name, bot_type=3, payload_url=json.dumps(BOTSERVER))
realm_bots = ok(owner.call_endpoint("register", request={"fetch_event_types": ["realm_bot"]}))["realm_bots"]
tokens = {b["user_id"]: b["services"][0]["token"] for b in realm_bots if b["services"]}
(WORK / "botserverrc").write_text(
    "".join(
        f"[{name}]\nemail={bot['email']}\nkey={bot['key']}\nsite={args.site}\ntoken={tokens[bot['id']]}\n"
        for name, bot in served.items()
    )
)
(WORK / "botserver-bots.conf").write_text("[followup]\nstream = followup\n")
ok(owner.add_subscriptions([{"name": "followup"}]))
start(
    "botserver",
    [str(BIN / "zulip-botserver"), "--config-file", str(WORK / "botserverrc"), "--bot-config-file",
     str(WORK / "botserver-bots.conf"), "--hostname", "127.0.0.1", "--port", args.botserver_port],
)


def botserver_listening() -> bool:
    try:
        requests.get(BOTSERVER, timeout=2)
        return True
    except requests.ConnectionError:
        return False


try:
    wait_for("zulip-botserver to listen", botserver_listening)
    hello = served["helloworld"]
    topic = [["channel", "bots"], ["topic", "webhooks"]]
    ok(peer.send_message({"type": "stream", "to": "bots", "topic": "webhooks", "content": f"@**{hello['name']}** hi"}))
    wait_for(
        "helloworld (zulip-botserver) to answer the mention",
        lambda: any(m["sender_id"] == hello["id"] and m["content"] == "beep boop" for m in messages(peer, topic)),
    )
    follow = served["followup"]
    ok(peer.send_message({"type": "stream", "to": "bots", "topic": "webhooks", "content": f"@**{follow['name']}** call the plumber"}))
    wait_for(
        "followup (zulip-botserver) to post to the followup channel",
        lambda: any(
            m["sender_id"] == follow["id"] and "call the plumber" in m["content"]
            for m in messages(owner, [["channel", "followup"]])
        ),
    )
    print("zulip-botserver: helloworld and followup answered mentions through outgoing-webhook bots")
finally:
    for process in processes:
        process.terminate()
        process.wait()
    processes.clear()

# --- upload-file ------------------------------------------------------------------------------
sample = WORK / "report.txt"
sample.write_text("quarterly figures\n")
uploaded = subprocess.run(
    [str(BIN / "python"), str(SITE_PACKAGES / "zulip" / "examples" / "upload-file"), "--config-file", str(WORK / "owner.zuliprc"), "--file-path", str(sample)],
    capture_output=True, text=True, check=True,
).stdout
match = re.search(r"File URI: (\S+)", uploaded)
if not match:
    raise SystemExit(f"upload-file did not print a URI: {uploaded}")
link = match.group(1)
ok(owner.send_message({"type": "direct", "to": ["peer@example.com"], "content": f"[report]({link})"}))


def fetch(client, path):
    return requests.get(args.site + path, auth=(client.email, client.api_key), timeout=30)


member = fetch(peer, link)
assert member.status_code == 200 and member.text == "quarterly figures\n", (member.status_code, member.text)
refused = fetch(outsider, link)
assert refused.status_code == 403, (refused.status_code, refused.text)
print(f"zulip upload-file: uploaded {link}; the recipient downloads it, an outsider gets {refused.status_code}")
sys.exit(0)
