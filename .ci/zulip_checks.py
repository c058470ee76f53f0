"""What the scripts that drive real Zulip clients against the dev stack share."""

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
