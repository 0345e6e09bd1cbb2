"""tests/python/npm_reach.py — what the tests that fetch a reference from the npm registry
(`npm pack`, at test time) do when it cannot be reached: skip, with the reason, by exit
code SKIP (CTest's SKIP_RETURN_CODE for them, tests/CMakeLists.txt). Only a network
failure skips — npm's own words for one (no DNS, refused, reset, timed out, offline);
a missing package, a wrong checksum or a missing npm still fail."""
import sys

SKIP = 77
NETWORK_WORDS = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH",
                 "ENETDOWN", "socket hang up", "network request", "ENOTCACHED", "request to http")


def unreachable(stderr):
    """True when npm's output says the registry could not be reached."""
    return any(w in stderr for w in NETWORK_WORDS)


def skip_if_unreachable(command, returncode, stderr):
    """Exits SKIP, saying why, when `command` failed for want of the registry; else returns."""
    if returncode != 0 and unreachable(stderr):
        why = [l.strip() for l in stderr.splitlines() if any(w in l for w in NETWORK_WORDS)][:2]
        print(f"SKIP: `{command}` cannot reach the npm registry (exit {returncode}): " + " | ".join(why))
        sys.exit(SKIP)
