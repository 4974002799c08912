#!/usr/bin/env python3
"""Measures how long a story change made through one node takes to reach the others' searches.

Against a running `scripts/cluster.sh up` (development auth): ingests a public story through
node 1, times until nodes 2..N find it; makes it private through node 1, times until an
outsider on the other nodes no longer finds it (its owner still does); deletes it, times until
it is gone. Each step is repeated --rounds times; prints the worst and median delay per step
and exits 1 when any exceeds --limit seconds (1 s, issue 34).

    GRIOT_AUTH_MODE=development scripts/cluster.sh up
    scripts/cluster-propagation.py --rounds 10
"""
import argparse, json, os, statistics, subprocess, sys, time, urllib.request, urllib.error, uuid

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def token(user, role):
    binary = os.environ.get("GRIOT_BIN", os.path.join(root, ".build/release/griot"))
    env = dict(os.environ, GRIOT_AUTH_MODE="development")
    return subprocess.run([binary, "token", "--user", user, "--role", role], env=env, check=True,
                          capture_output=True, text=True).stdout.strip().splitlines()[-1]

def call(port, method, path, bearer, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Authorization": f"Bearer {bearer}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        return error.code, None

def found(port, bearer, word, story_id):
    status, body = call(port, "GET", f"/api/stories/search?q={word}&k=20", bearer)
    return status == 200 and any(hit.get("storyId") == story_id or hit.get("story_id") == story_id for hit in (body or {}).get("results", body or []))

def wait(ports, predicate, limit):
    start = time.monotonic()
    pending = set(ports)
    while pending and time.monotonic() - start < limit * 5:
        pending = {port for port in pending if not predicate(port)}
        if pending: time.sleep(0.01)
    return time.monotonic() - start, pending

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=int(os.environ.get("GRIOT_CLUSTER_NODES", "3")))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--limit", type=float, default=1.0)
    args = parser.parse_args()
    ports = [8180 + n for n in range(1, args.nodes + 1)]
    writer, readers = ports[0], ports[1:]
    admin, owner, outsider = token("u-admin", "admin"), token("u-owner", "client"), token("u-outsider", "client")
    delays = {"ingested": [], "made private": [], "deleted": []}
    failures = []
    for _ in range(args.rounds):
        word = "zq" + uuid.uuid4().hex[:10]
        story_id = "prop-" + word
        story = {"artifact_id": story_id, "title": f"Propagation {word}", "privacy": "public", "owner_user_id": "u-owner",
                 "transcript": f"Zofia Łukasiewicz kept the {word} ledger at the ferry landing."}
        steps = [
            ("ingested", lambda: call(writer, "POST", "/api/stories", admin, story),
             lambda port: found(port, outsider, word, story_id)),
            ("made private", lambda: call(writer, "POST", "/api/stories", admin, dict(story, privacy="private")),
             lambda port: not found(port, outsider, word, story_id) and found(port, owner, word, story_id)),
            ("deleted", lambda: call(writer, "DELETE", f"/api/stories/{story_id}", admin),
             lambda port: not found(port, owner, word, story_id)),
        ]
        for name, act, holds in steps:
            status, _ = act()
            if status >= 300: sys.exit(f"{name}: node 1 answered {status}")
            elapsed, pending = wait(readers, holds, args.limit)
            delays[name].append(elapsed)
            if pending or elapsed > args.limit: failures.append(f"{name}: {elapsed:.3f} s (nodes on ports {sorted(pending)} not yet)")
    for name, values in delays.items():
        print(f"{name:13} through node 1, seen on {len(readers)} other nodes: median {statistics.median(values)*1000:.0f} ms, "
              f"worst {max(values)*1000:.0f} ms over {len(values)} rounds")
    if failures:
        print("over the limit:", *failures, sep="\n  ")
        sys.exit(1)

if __name__ == "__main__":
    main()
