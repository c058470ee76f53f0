"""What the scripts that drive real Zulip clients against the dev stack share."""

import json
import time


def ok(result: dict) -> dict:
    """The answer of a zulip.Client call, or the run stops with it."""
    if result.get("result") != "success":
        raise SystemExit(f"API call failed: {result}")
    return result


def wait_for(what: str, check, limit: float = 60.0, on_timeout=None):
    """Polls `check` until it returns something truthy (the machine may be busy: no fixed sleeps).
    `on_timeout` runs before the run stops, to keep what explains the failure."""
    deadline = time.monotonic() + limit
    pause = 0.1
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            if on_timeout:
                on_timeout()
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(pause)
        pause = min(pause * 2, 1.0)


class Answers:
    """The answers a run got, kept one JSON object a line for .ci/zulip-schemas.ts to validate
    against Zulip's OpenAPI document once the run is over."""

    def __init__(self, path):
        self.path = path
        path.write_text("")

    def record(self, path: str, method: str, body: dict, status: str = "200") -> dict:
        """Keeps `body` as the answer of `method path` with `status`; a 200 must be a success."""
        if status == "200":
            ok(body)
        elif body.get("result") != "error":
            raise SystemExit(f"{method.upper()} {path}: expected an error ({status}), got {body}")
        self._write({"path": path, "method": method, "status": status, "body": body})
        return body

    def component(self, name: str, body: dict) -> dict:
        """Keeps `body` to be checked against one of the document's component schemas."""
        self._write({"component": name, "body": body})
        return body

    def _write(self, entry: dict) -> None:
        with self.path.open("a") as out:
            out.write(json.dumps(entry) + "\n")
