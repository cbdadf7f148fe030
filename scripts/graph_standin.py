"""graph-standin for scripts/check-sync and scripts/bench-sync: starts it, reads its statistics while it
serves, and talks to it as any Graph client would (curl with the token of its environment file), for
changes made "in Outlook" between two runs of graph-ics.

The token goes to curl in a header file (mode 0600), never on a command line or in output.
"""
import json
import os
import signal
import subprocess
import time
import urllib.parse


class StandIn:
    """A running graph-standin; `env` holds the GRAPH_ICS_* variables that point graph-ics at it."""

    def __init__(self, path, tmp, *arguments):
        self.tmp = tmp
        env_file = os.path.join(tmp, "standin.env")
        self.stats_file = os.path.join(tmp, "standin.stats")
        self.errors = os.path.join(tmp, "standin.err")
        with open(self.errors, "w") as errors:
            self.process = subprocess.Popen(
                [path, *map(str, arguments), "--env-file", env_file, "--stats", self.stats_file],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
        for _ in range(1200):
            if os.path.exists(env_file) or self.process.poll() is not None:
                break
            time.sleep(0.1)
        if not os.path.exists(env_file):
            self.stop()
            raise RuntimeError("graph-standin did not start: " + open(self.errors).read().strip()[-400:])
        self.env = dict(line.split("=", 1) for line in open(env_file).read().split("\n") if "=" in line)
        self.base = self.env["GRAPH_ICS_GRAPH_URL"]
        self.header_file = os.path.join(tmp, "authorization.header")
        fd = os.open(self.header_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, ("Authorization: Bearer " + self.env["GRAPH_ICS_ACCESS_TOKEN"] + "\n").encode())
        os.close(fd)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def stats(self):
        """What the stand-in saw so far (graph-standin --stats, written on SIGUSR1): requests, operations, …"""
        if os.path.exists(self.stats_file):
            os.remove(self.stats_file)
        self.process.send_signal(signal.SIGUSR1)
        for _ in range(600):
            if os.path.exists(self.stats_file):
                return json.load(open(self.stats_file))
            time.sleep(0.01)
        raise RuntimeError("graph-standin wrote no statistics")

    def graph(self, method, path, body=None):
        """(HTTP status, JSON body or None) of one Graph request."""
        url = path if path.startswith("http") else self.base + path
        command = ["curl", "-sS", "-X", method, "-H", "@" + self.header_file, "-w", "\n%{http_code}", url]
        if body is not None:
            command[4:4] = ["-H", "Content-Type: application/json", "--data-binary", "@-"]
        answer = subprocess.run(command, input=json.dumps(body) if body is not None else None,
                                capture_output=True, text=True, timeout=60)
        if answer.returncode != 0:
            raise RuntimeError(f"curl {method} {path}: {answer.stderr.strip()}")
        text, _, status = answer.stdout.rpartition("\n")
        return int(status), (json.loads(text) if text.strip() else None)

    def calendar_view(self, start, end):
        """Every event of [start, end) (occurrences and exceptions included), following the next links."""
        query = urllib.parse.urlencode({"startDateTime": start.isoformat(), "endDateTime": end.isoformat()})
        link, events = f"/me/calendarView?{query}", []
        while link:
            status, page = self.graph("GET", link)
            if status != 200:
                raise RuntimeError(f"GET calendarView answered {status}")
            events += page["value"]
            link = page.get("@odata.nextLink")
        return events
