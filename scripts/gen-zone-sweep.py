#!/usr/bin/env python3
"""Write a Graph calendarView document that sweeps every Windows time zone.

    python3 scripts/gen-zone-sweep.py [--cldr PATH] [--years 2026 2027] > sweep.json
    .build/debug/graph-ics convert sweep.json -o sweep.ics
    python3 scripts/referee.py sweep.json sweep.ics

For every Windows zone in CLDR's windowsZones.xml (territory "001") it writes,
with originalStartTimeZone/originalEndTimeZone set to the Windows name:
- around every UTC-offset change of the zone in the given years (found with
  zoneinfo): events one hour before the change, a minute before, at it, at the
  first and second copy of the repeated local time (fall-back) or on both sides
  of the skipped one (spring-forward), at the end of that window, an hour after,
  and one event spanning the change;
- an ordinary event in January and in July, and one all-day event.
Most times are given in UTC (timeZone "UTC", as Graph returns them by default);
the January and July events, and the "an hour after" events where that local
time is unambiguous, are given as local time in the Windows zone (as Graph
returns them with `Prefer: outlook.timezone`). Events are written zone by zone,
not sorted, so the converter's ordering is tested too.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CLDR = REPO_ROOT.parent / "shared" / "corpus" / "tz" / "windowsZones.xml"
CONTEXT = "https://graph.microsoft.com/v1.0/$metadata#users('sweep')/calendar/calendarView"
EVENT_LENGTH = timedelta(minutes=30)


def windows_zones(path: Path) -> list[tuple[str, str]]:
    """(Windows name, IANA name) for every territory "001" row, in file order."""
    rows = ET.parse(path).getroot().iter("mapZone")
    return [(row.get("other"), row.get("type").split()[0]) for row in rows if row.get("territory") == "001"]


def offset_at(instant: datetime, zone: ZoneInfo) -> timedelta:
    return instant.astimezone(zone).utcoffset()


def transitions(zone: ZoneInfo, first_year: int, last_year: int) -> list[tuple[datetime, timedelta, timedelta]]:
    """(UTC instant, offset before, offset after) of every offset change in the years."""
    found = []
    day = datetime(first_year, 1, 1, tzinfo=timezone.utc)
    end = datetime(last_year + 1, 1, 1, tzinfo=timezone.utc)
    while day < end:
        following = day + timedelta(days=1)
        before, after = offset_at(day, zone), offset_at(following, zone)
        if before != after:
            low, high = day, following  # offset_at(low) == before, offset_at(high) == after
            while high - low > timedelta(seconds=1):
                middle = low + (high - low) / 2
                middle = middle.replace(microsecond=0)
                if offset_at(middle, zone) == before:
                    low = middle
                else:
                    high = middle
            found.append((high, before, after))
        day = following
    return found


def graph_time(instant: datetime, zone_name: str = "UTC", zone: ZoneInfo | None = None) -> dict:
    """A Graph dateTimeTimeZone: UTC, or local time in a zone Graph names `zone_name`."""
    moment = instant.astimezone(zone or timezone.utc)
    return {"dateTime": moment.strftime("%Y-%m-%dT%H:%M:%S.0000000"), "timeZone": zone_name}


def unambiguous(instant: datetime, zone: ZoneInfo) -> bool:
    """Whether the local time of `instant` in `zone` names that instant and no other."""
    wall = instant.astimezone(zone).replace(tzinfo=None)
    readings = {wall.replace(tzinfo=zone, fold=fold).astimezone(timezone.utc) for fold in (0, 1)}
    return readings == {instant.astimezone(timezone.utc)}


def offset_text(offset: timedelta) -> str:
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def utc_text(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


class Sweep:
    """Collects the events of one document; ids are unique by construction."""

    def __init__(self) -> None:
        self.events: list[dict] = []

    def add(self, windows: str, iana: str, what: str, start: dict, end: dict, all_day: bool = False) -> None:
        number = len(self.events) + 1
        slug = re.sub(r"[^A-Za-z0-9]+", "-", windows).strip("-")
        self.events.append({
            "id": f"sweep-{number:05d}-{slug}",
            "iCalUId": f"sweep-{number:05d}-{slug}@graph-ics.test",
            "subject": f"{windows} ({iana}): {what}",
            "bodyPreview": "",
            "body": {"contentType": "text", "content": ""},
            "start": start,
            "end": end,
            "originalStartTimeZone": windows,
            "originalEndTimeZone": windows,
            "isAllDay": all_day,
            "isCancelled": False,
            "showAs": "free" if all_day else "busy",
            "sensitivity": "normal",
            "importance": "normal",
            "type": "singleInstance",
            "seriesMasterId": None,
            "isReminderOn": False,
            "reminderMinutesBeforeStart": 0,
            "categories": [],
            "attendees": [],
        })

    def add_timed(self, windows: str, iana: str, zone: ZoneInfo, what: str, start: datetime, end: datetime,
                  local: bool = False) -> None:
        """An event given in UTC, or in the Windows zone when `local` and both ends are unambiguous."""
        if local and unambiguous(start, zone) and unambiguous(end, zone):
            self.add(windows, iana, what + " [given in local time]",
                     graph_time(start, windows, zone), graph_time(end, windows, zone))
        else:
            self.add(windows, iana, what, graph_time(start), graph_time(end))


def sweep_zone(sweep: Sweep, windows: str, iana: str, years: tuple[int, int]) -> None:
    zone = ZoneInfo(iana)
    first_year, last_year = years
    for at, before, after in transitions(zone, first_year, last_year):
        width = abs(after - before)
        kind = "fall-back" if after < before else "spring-forward"
        change = f"{kind} at {utc_text(at)} ({offset_text(before)} -> {offset_text(after)})"
        # The window is the repeated (fall-back) or skipped (spring-forward) local time.
        probes = [
            ("starts 1 h before", at - timedelta(hours=1)),
            ("starts 1 min before", at - timedelta(minutes=1)),
            ("starts half the window before", at - width / 2),
            ("starts at the change", at),
            ("starts half the window after", at + width / 2),
            ("starts one window after", at + width),
        ]
        for label, start in probes:
            local = start.astimezone(zone)
            what = f"{change}: {label}, local {local:%Y-%m-%d %H:%M} {offset_text(local.utcoffset())}"
            sweep.add_timed(windows, iana, zone, what, start, start + EVENT_LENGTH)
        later = at + width + timedelta(hours=1)
        sweep.add_timed(windows, iana, zone, f"{change}: starts 1 h after the window", later,
                        later + EVENT_LENGTH, local=True)
        sweep.add_timed(windows, iana, zone, f"{change}: spans the change, 1 h either side",
                        at - timedelta(hours=1), at + timedelta(hours=1))

    for month, hour in ((1, 9), (7, 14)):
        start = datetime(last_year, month, 15, hour, 0, tzinfo=zone)
        sweep.add_timed(windows, iana, zone, f"ordinary event, {last_year}-{month:02d}-15 {hour:02d}:00 local",
                        start, start + timedelta(hours=1), local=True)
    day = datetime(last_year, 2, 1)
    sweep.add(windows, iana, f"all-day event {day:%Y-%m-%d}",
              {"dateTime": f"{day:%Y-%m-%d}T00:00:00.0000000", "timeZone": windows},
              {"dateTime": f"{day + timedelta(days=1):%Y-%m-%d}T00:00:00.0000000", "timeZone": windows},
              all_day=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cldr", type=Path, default=DEFAULT_CLDR, help="CLDR windowsZones.xml")
    parser.add_argument("--years", type=int, nargs=2, default=(2026, 2027), metavar=("FIRST", "LAST"))
    arguments = parser.parse_args()
    sweep = Sweep()
    for windows, iana in windows_zones(arguments.cldr):
        sweep_zone(sweep, windows, iana, tuple(arguments.years))
    json.dump({"@odata.context": CONTEXT, "value": sweep.events}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    print(f"{len(sweep.events)} events", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
