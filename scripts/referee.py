#!/usr/bin/env python3
"""Referee: check an .ics file that graph-ics produced from a Graph JSON file.

    python3 scripts/referee.py GRAPH.json OUT.ics [--tz IANA] [--cldr PATH] [--allow-missing]
    python3 scripts/referee.py --alone OUT.ics [--tz IANA]

With --alone there is no Graph JSON to compare with (a file graph-ics exported from Graph itself, such
as `graph-ics demo`'s): the line, calendar and order checks run, every event must have UID, DTSTAMP,
SUMMARY and DTSTART, and each DTSTART and DTEND must be the same instant by its TZID's name and by
every reader of the embedded VTIMEZONEs.

GRAPH.json is the input given to `graph-ics convert` (a calendarView response
`{"value": [...]}`, a single event or an array of events), OUT.ics what it wrote.
The referee shares no code with graph-ics: it reads the .ics with the Python
`icalendar` package (`pip install icalendar`), time zones with `zoneinfo`, and
the Windows -> IANA table straight from CLDR's windowsZones.xml (territory
"001"; default ../shared/corpus/tz/windowsZones.xml next to the repository).

What it checks:
- lines: every line ends in CRLF, is at most 75 octets without it, and is valid
  UTF-8 on its own (folding never cuts a multi-byte character);
- calendar: VERSION:2.0, PRODID, METHOD:PUBLISH; a VTIMEZONE for every TZID
  parameter used, and all VTIMEZONEs before the first VEVENT;
- events, matched by X-GRAPH-ICS-EVENT-ID = Graph `id`: UID = iCalUId,
  SUMMARY = subject (present, empty without one), one CATEGORIES property at
  most, holding Graph's categories, STATUS:CANCELLED iff isCancelled, DTSTAMP
  present;
  timed events: DTSTART/DTEND are Graph's start/end instants (a zero-length
  event has DURATION:PT0S instead of DTEND), read by TZID name with zoneinfo,
  and from the VTIMEZONEs embedded in the file by four readers: the referee's
  own RFC 5545 evaluation, Python icalendar's Timezone.to_tz(), dateutil's
  tzical and vobject (which read the VTIMEZONE blocks themselves, as Radicale
  and ics-py do);
  all-day events: DTSTART/DTEND are VALUE=DATE equal to Graph's dates;
- order: VEVENTs sorted by start instant, then UID. An all-day event starts at
  midnight of its date in --tz (UTC without --tz).

Graph events the referee itself cannot read (no start, bad dateTime, unknown
time zone) must be absent from the output. Other Graph events must be present
unless --allow-missing is given.

Prints one line per failure, then `N passed, N failed`; exits 1 on any
failure, 2 when the inputs cannot be read at all.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

try:
    import icalendar
    import vobject
    from dateutil import tz as dateutil_tz
    from dateutil.rrule import rrulestr
except ImportError:  # pragma: no cover - depends on the machine
    sys.exit("referee.py needs icalendar, vobject and python-dateutil: pip install icalendar vobject python-dateutil")

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CLDR = REPO_ROOT.parent / "shared" / "corpus" / "tz" / "windowsZones.xml"
MAX_OCTETS = 75
EVENT_ID_PROPERTY = "X-GRAPH-ICS-EVENT-ID"
GRAPH_DATETIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,7})?$")
# VTIMEZONE rules without an end are expanded up to here: graph-ics places times in zones up to 2199.
RULE_HORIZON = datetime(2200, 1, 1)


class Referee:
    """Counts checks and prints one line per failed check."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, ok: bool, message: str) -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {message}")
        return ok

    def ok(self) -> None:
        self.passed += 1

    def fail(self, message: str) -> None:
        self.check(False, message)


# ---------------------------------------------------------------- Graph side


class BadGraphEvent(Exception):
    """A Graph event the referee cannot interpret; graph-ics must reject it too."""


def load_windows_zones(path: Path) -> dict[str, str]:
    """Windows zone name -> IANA name, from CLDR's territory "001" rows."""
    table = {}
    for row in ET.parse(path).getroot().iter("mapZone"):
        if row.get("territory") == "001":
            table[row.get("other")] = row.get("type").split()[0]
    return table


def graph_zone(name: object, windows_zones: dict[str, str]) -> ZoneInfo:
    """The zone of a Graph dateTimeTimeZone: a Windows name, an IANA name or UTC."""
    if not isinstance(name, str) or not name:
        raise BadGraphEvent(f"time zone {name!r} is not a name")
    if name == "tzone://Microsoft/Utc":
        return ZoneInfo("UTC")
    if name in windows_zones:
        return ZoneInfo(windows_zones[name])
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadGraphEvent(f"unknown time zone {name!r}") from None


def graph_wall_time(value: object) -> datetime:
    """Parse Graph's "2026-12-01T08:00:00.0000000" (no zone; fractions dropped)."""
    match = GRAPH_DATETIME.match(value) if isinstance(value, str) else None
    if not match:
        raise BadGraphEvent(f"dateTime {value!r} is not in Graph's form")
    try:
        return datetime(*(int(part) for part in match.groups()))
    except ValueError:
        raise BadGraphEvent(f"dateTime {value!r} is not a valid time") from None


@dataclass
class ExpectedEvent:
    """What the VEVENT for one Graph event must say."""

    graph_id: str
    label: str
    uid: str | None
    subject: str | None
    cancelled: bool
    all_day: bool
    categories: list[str]
    start: datetime | date | None = None  # aware UTC datetime, or a date when all-day
    end: datetime | date | None = None
    problem: str | None = None  # why the referee could not read the event


def expected_event(event: dict, windows_zones: dict[str, str]) -> ExpectedEvent:
    subject = event.get("subject")
    expected = ExpectedEvent(
        graph_id=event.get("id"),
        label=f"{event.get('id')} ({subject!r})",
        uid=event.get("iCalUId"),
        subject=subject,
        cancelled=event.get("isCancelled") is True,
        all_day=event.get("isAllDay") is True,
        categories=[c for c in event.get("categories") or [] if isinstance(c, str) and c.strip()],
    )
    try:
        ends = []
        for key in ("start", "end"):
            value = event.get(key)
            if not isinstance(value, dict):
                raise BadGraphEvent(f"no {key!r} object")
            wall = graph_wall_time(value.get("dateTime"))
            if expected.all_day:
                ends.append(wall.date())
            else:
                zone = graph_zone(value.get("timeZone"), windows_zones)
                ends.append(wall.replace(tzinfo=zone).astimezone(timezone.utc))
        expected.start, expected.end = ends
    except BadGraphEvent as problem:
        expected.problem = str(problem)
    return expected


def load_graph_events(path: Path) -> list[dict]:
    document = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(document, dict) and "value" in document:
        document = document["value"]
    if isinstance(document, dict):
        document = [document]
    if not isinstance(document, list) or not all(isinstance(e, dict) for e in document):
        raise ValueError("not a calendarView response, an event or an array of events")
    return document


# ---------------------------------------------------------------- iCalendar side


def check_lines(raw: bytes, referee: Referee) -> None:
    """CRLF endings, 75-octet lines, and no UTF-8 sequence cut by folding."""
    referee.check(raw.endswith(b"\r\n"), "file: does not end in CRLF")
    lines = raw.split(b"\r\n")
    if lines and lines[-1] == b"":
        lines.pop()
    bad_endings, too_long, split_utf8 = [], [], []
    for number, line in enumerate(lines, start=1):
        if b"\n" in line or b"\r" in line:
            bad_endings.append(number)
        if len(line) > MAX_OCTETS:
            too_long.append(f"{number} ({len(line)} octets)")
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            split_utf8.append(number)
    referee.check(not bad_endings, f"lines: bare CR or LF in lines {shorten(bad_endings)}")
    referee.check(not too_long, f"lines: longer than {MAX_OCTETS} octets: {shorten(too_long)}")
    referee.check(not split_utf8, f"lines: not valid UTF-8 on their own: {shorten(split_utf8)}")
    try:
        unfold(raw).decode("utf-8")
        referee.ok()
    except UnicodeDecodeError as error:
        referee.fail(f"file: unfolded text is not UTF-8: {error}")


def unfold(raw: bytes) -> bytes:
    """RFC 5545 3.1 unfolding, done on octets so that a cut character rejoins."""
    return re.sub(rb"\r\n[ \t]", b"", raw)


def shorten(items: list, limit: int = 8) -> str:
    text = ", ".join(str(item) for item in items[:limit])
    return text + (f" … ({len(items)} in all)" if len(items) > limit else "")


class EmbeddedZone:
    """A VTIMEZONE evaluated by the RFC 5545 rules, without any tz database.

    Onsets (DTSTART, RDATE, RRULE) are local times in TZOFFSETFROM. A local time
    in a fold means its first occurrence, one in a gap is read with the offset
    before the gap (RFC 5545 3.3.5), which is what zoneinfo does with fold=0.
    """

    def __init__(self, vtimezone: icalendar.Timezone) -> None:
        self.transitions: list[tuple[datetime, timedelta, timedelta]] = []  # (UTC, from, to)
        for observance in vtimezone.subcomponents:
            offset_from = observance["TZOFFSETFROM"].td
            offset_to = observance["TZOFFSETTO"].td
            for onset in self._onsets(observance, offset_from):
                self.transitions.append((onset - offset_from, offset_from, offset_to))
        self.transitions.sort()
        if not self.transitions:
            raise ValueError("VTIMEZONE has no STANDARD or DAYLIGHT onset")

    @staticmethod
    def _onsets(observance: icalendar.cal.Component, offset_from: timedelta) -> set[datetime]:
        start = naive(observance["DTSTART"].dt)
        onsets = {start}
        for rdate in as_list(observance.get("RDATE")):
            onsets.update(naive(entry.dt) for entry in rdate.dts)
        rule = observance.get("RRULE")
        if rule is not None:
            text = rule.to_ical().decode()
            until = None
            if "UNTIL" in rule:
                until = rule["UNTIL"][0]
                if isinstance(until, datetime) and until.tzinfo is not None:
                    # UTC as RFC 5545 requires: compare as local time in TZOFFSETFROM.
                    until = until.astimezone(timezone.utc).replace(tzinfo=None) + offset_from
                elif not isinstance(until, datetime):
                    until = datetime.combine(until, datetime.max.time())
                text = re.sub(r"(^|;)UNTIL=[^;]*", "", text).lstrip(";")
            limit = min(until, RULE_HORIZON) if until else RULE_HORIZON
            for onset in rrulestr(text, dtstart=start):
                if onset > limit:
                    break
                onsets.add(onset)
        for exdate in as_list(observance.get("EXDATE")):
            onsets.difference_update(naive(entry.dt) for entry in exdate.dts)
        return onsets

    def utc(self, wall: datetime) -> datetime:
        """The UTC instant of a local time in this zone."""
        first_offset = self.transitions[0][1]
        spans = [(None, self.transitions[0][0], first_offset)]
        for index, (at, _, offset_to) in enumerate(self.transitions):
            following = self.transitions[index + 1][0] if index + 1 < len(self.transitions) else None
            spans.append((at, following, offset_to))
        candidates = sorted(
            wall - offset
            for begin, end, offset in spans
            if (begin is None or begin <= wall - offset) and (end is None or wall - offset < end)
        )
        if candidates:
            return candidates[0].replace(tzinfo=timezone.utc)
        for at, offset_from, offset_to in self.transitions:
            if at + offset_from <= wall < at + offset_to:
                return (wall - offset_from).replace(tzinfo=timezone.utc)
        raise ValueError(f"{wall} fits no observance")  # inconsistent offsets


def as_list(value: object) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def naive(moment: datetime | date) -> datetime:
    if not isinstance(moment, datetime):
        return datetime.combine(moment, datetime.min.time())
    return moment.replace(tzinfo=None)


@dataclass
class IcsTime:
    """DTSTART or DTEND as written: a date, a UTC time, or a local time with TZID."""

    value: date | datetime
    tzid: str | None
    is_date: bool

    @classmethod
    def read(cls, prop) -> IcsTime:
        moment = prop.dt
        tzid = prop.params.get("TZID")
        if not isinstance(moment, datetime):
            return cls(moment, None, prop.params.get("VALUE") == "DATE")
        if tzid is None and moment.tzinfo is not None:
            return cls(moment.astimezone(timezone.utc), None, False)
        return cls(moment.replace(tzinfo=None, fold=0), tzid, False)

    def describe(self) -> str:
        if self.is_date or not isinstance(self.value, datetime):
            return self.value.isoformat()
        if self.tzid is None:
            return self.value.strftime("%Y-%m-%dT%H:%M:%S") + ("Z" if self.value.tzinfo else " (floating)")
        return f"{self.value:%Y-%m-%dT%H:%M:%S} TZID={self.tzid}"


def instant_by_name(time: IcsTime) -> datetime:
    if time.tzid is None:
        if time.value.tzinfo is None:
            raise ValueError("floating time (no TZID, no Z)")
        return time.value
    try:
        zone = ZoneInfo(time.tzid)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"TZID {time.tzid!r} is not an IANA zone name") from None
    return time.value.replace(tzinfo=zone, fold=0).astimezone(timezone.utc)


def instant_by_vtimezone(time: IcsTime, zones: dict[str, EmbeddedZone]) -> datetime:
    if time.tzid is None:
        return time.value
    if time.tzid not in zones:
        raise ValueError(f"no VTIMEZONE for TZID {time.tzid!r}")
    return zones[time.tzid].utc(time.value)


class ZoneReader:
    """Another program's reading of the file's VTIMEZONEs: each TZID as a tzinfo, or per event as
    vobject parses it (its DTSTART/DTEND values carry the tzinfo it built from the file)."""

    def __init__(self, name: str, zones: dict | None = None, events: dict | None = None,
                 problem: str | None = None) -> None:
        self.name = name
        self.zones = zones or {}
        self.events = events
        self.problem = problem

    def instant(self, time: IcsTime, graph_id: str, key: str) -> datetime:
        if self.problem is not None:
            raise ValueError(f"{self.name} cannot read the file: {self.problem}")
        if time.tzid is None:
            return time.value
        if self.events is not None:
            value = self.events.get((graph_id, key))
            if not isinstance(value, datetime) or value.tzinfo is None:
                raise ValueError(f"{self.name} gives {value!r}")
            return value.astimezone(timezone.utc)
        if time.tzid not in self.zones:
            raise ValueError(f"{self.name} has no zone for TZID {time.tzid!r}")
        return time.value.replace(tzinfo=self.zones[time.tzid], fold=0).astimezone(timezone.utc)


def zone_readers(text: str, calendar: icalendar.Calendar) -> dict[str, ZoneReader]:
    """The readers of the embedded VTIMEZONEs: Python icalendar, dateutil's tzical, vobject."""
    readers = {}
    try:
        readers["icalendar"] = ZoneReader("icalendar", zones={
            str(vtimezone["TZID"]): vtimezone.to_tz() for vtimezone in calendar.walk("VTIMEZONE")})
    except Exception as error:  # any failure to read is the finding
        readers["icalendar"] = ZoneReader("icalendar", problem=f"{type(error).__name__}: {error}")
    try:
        import io
        tzical = dateutil_tz.tzical(io.StringIO(text))
        readers["tzical"] = ZoneReader("tzical", zones={key: tzical.get(key) for key in tzical.keys()})
    except Exception as error:
        readers["tzical"] = ZoneReader("tzical", problem=f"{type(error).__name__}: {error}")
    try:
        events = {}
        for vevent in getattr(vobject.readOne(text), "vevent_list", []):
            graph_id = getattr(vevent, "x_graph_ics_event_id", None)
            for key in ("DTSTART", "DTEND"):
                line = getattr(vevent, key.lower(), None)
                if graph_id is not None and line is not None:
                    events[(graph_id.value, key)] = line.value
        readers["vobject"] = ZoneReader("vobject", events=events)
    except Exception as error:
        readers["vobject"] = ZoneReader("vobject", problem=f"{type(error).__name__}: {error}")
    return readers


def utc_text(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------- checks


def check_calendar(calendar: icalendar.Calendar, referee: Referee) -> dict[str, EmbeddedZone]:
    """Calendar properties, parse errors and VTIMEZONEs; returns the embedded zones."""
    referee.check(str(calendar.get("VERSION", "")) == "2.0", "calendar: VERSION is not 2.0")
    referee.check(bool(str(calendar.get("PRODID", "")).strip()), "calendar: no PRODID")
    referee.check(str(calendar.get("METHOD", "")).upper() == "PUBLISH", "calendar: METHOD is not PUBLISH")
    for component in calendar.walk():
        for error in getattr(component, "errors", []):
            referee.fail(f"parse: {component.name}: {error}")

    kinds = [component.name for component in calendar.subcomponents]
    first_event = kinds.index("VEVENT") if "VEVENT" in kinds else len(kinds)
    referee.check(
        "VTIMEZONE" not in kinds[first_event:], "calendar: a VTIMEZONE comes after a VEVENT"
    )

    zones: dict[str, EmbeddedZone] = {}
    for vtimezone in calendar.walk("VTIMEZONE"):
        tzid = str(vtimezone.get("TZID", ""))
        if not referee.check(tzid not in zones, f"VTIMEZONE {tzid!r}: appears twice"):
            continue
        try:
            zones[tzid] = EmbeddedZone(vtimezone)
            referee.ok()
        except (KeyError, ValueError) as error:
            referee.fail(f"VTIMEZONE {tzid!r}: cannot be evaluated: {error}")

    used = set()
    for component in calendar.walk():
        if component.name in ("VTIMEZONE", "STANDARD", "DAYLIGHT"):
            continue
        for _, value in component.property_items(recursive=False):
            tzid = getattr(value, "params", {}).get("TZID")
            if tzid is not None:
                used.add(tzid)
    for tzid in sorted(used):
        referee.check(tzid in zones, f"TZID {tzid!r}: used but no VTIMEZONE defines it")
    return zones


def check_event(
    vevent: icalendar.Event,
    expected: ExpectedEvent,
    zones: dict[str, EmbeddedZone],
    zone_readers: dict[str, ZoneReader],
    referee: Referee,
) -> None:
    label = expected.label
    uid = str(vevent.get("UID", ""))
    referee.check(bool(uid), f"{label}: no UID")
    if expected.uid is not None:
        referee.check(uid == expected.uid, f"{label}: UID {uid!r}, expected iCalUId {expected.uid!r}")
    referee.check("DTSTAMP" in vevent, f"{label}: no DTSTAMP")

    if referee.check("SUMMARY" in vevent, f"{label}: no SUMMARY (calcurse crashes on such an event)"):
        summary = str(vevent.get("SUMMARY", ""))
        wanted = (expected.subject or "").replace("\r\n", "\n").replace("\r", "\n")
        referee.check(summary == wanted, f"{label}: SUMMARY {summary!r}, expected {wanted!r}")

    categories = vevent.get("CATEGORIES")
    if isinstance(categories, list):
        referee.fail(f"{label}: {len(categories)} CATEGORIES properties, expected one (ics-py refuses more)")
    else:
        got = [str(c) for c in categories.cats] if categories is not None else []
        referee.check(got == expected.categories, f"{label}: CATEGORIES {got!r}, expected {expected.categories!r}")

    status = str(vevent.get("STATUS", "")).upper()
    if expected.cancelled:
        referee.check(status == "CANCELLED", f"{label}: isCancelled but STATUS is {status or 'absent'}")
    else:
        referee.check(status != "CANCELLED", f"{label}: STATUS:CANCELLED but not isCancelled")

    for key, wanted in (("DTSTART", expected.start), ("DTEND", expected.end)):
        if key == "DTEND" and not expected.all_day and expected.start == expected.end:
            duration = vevent.get("DURATION")
            referee.check(
                key not in vevent and duration is not None and duration.dt == timedelta(0),
                f"{label}: zero-length event without DURATION:PT0S (khal shows it as an hour)",
            )
            continue
        if not referee.check(key in vevent, f"{label}: no {key}"):
            continue
        written = IcsTime.read(vevent[key])
        if expected.all_day:
            ok = written.is_date and written.value == wanted
            referee.check(ok, f"{label}: {key} {written.describe()}, expected VALUE=DATE {wanted.isoformat()}")
            continue
        if not referee.check(not written.is_date and isinstance(written.value, datetime),
                             f"{label}: {key} {written.describe()} is a date, expected a time"):
            continue
        if not referee.check(written.tzid is not None or written.value.tzinfo is not None,
                             f"{label}: {key} {written.describe()} is floating, expected TZID or UTC"):
            continue
        readers = [("by TZID name", instant_by_name),
                   ("by embedded VTIMEZONE", lambda t: instant_by_vtimezone(t, zones))]
        # A reader that cannot read the file at all is reported once, by run().
        readers += [(f"by {name}", lambda t, r=reader: r.instant(t, expected.graph_id, key))
                    for name, reader in zone_readers.items() if reader.problem is None]
        for method, reader in readers:
            try:
                got = reader(written)
            except ValueError as error:
                referee.fail(f"{label}: {key} {written.describe()}: {error}")
                continue
            referee.check(
                got == wanted,
                f"{label}: {key} {written.describe()} is {utc_text(got)} {method}, "
                f"expected {utc_text(wanted)}",
            )


def start_key(vevent: icalendar.Event, all_day_zone: ZoneInfo) -> tuple[datetime, str] | None:
    """Sort key (start instant, UID) of a VEVENT, or None when its start is unreadable."""
    if "DTSTART" not in vevent:
        return None
    written = IcsTime.read(vevent["DTSTART"])
    try:
        if not isinstance(written.value, datetime):
            instant = datetime.combine(written.value, datetime.min.time(), all_day_zone)
        else:
            instant = instant_by_name(written)
    except ValueError:
        return None
    return instant.astimezone(timezone.utc), str(vevent.get("UID", ""))


def check_order(events: list[icalendar.Event], all_day_zone: ZoneInfo, referee: Referee) -> None:
    keyed = [(number, start_key(vevent, all_day_zone)) for number, vevent in enumerate(events, start=1)]
    keyed = [(number, key) for number, key in keyed if key is not None]
    for (number_before, before), (number_after, after) in zip(keyed, keyed[1:]):
        if after < before:
            referee.fail(
                f"order: VEVENT {number_after} ({utc_text(after[0])}, UID {after[1]}) should come before "
                f"VEVENT {number_before} ({utc_text(before[0])}, UID {before[1]})"
            )
            return
    referee.ok()


def check_alone(
    vevent: icalendar.Event, index: int, zones: dict[str, EmbeddedZone], readers: dict[str, ZoneReader],
    referee: Referee,
) -> None:
    """One event of a file checked without Graph JSON: its properties, and its times read alike by all."""
    graph_id = str(vevent.get(EVENT_ID_PROPERTY, ""))
    label = f"VEVENT {index} (UID {vevent.get('UID')}, SUMMARY {vevent.get('SUMMARY')})"
    for key in ("UID", "DTSTAMP", "SUMMARY", "DTSTART"):
        referee.check(key in vevent, f"{label}: no {key}")
    for key in ("DTSTART", "DTEND"):
        if key not in vevent:
            continue
        written = IcsTime.read(vevent[key])
        if written.is_date or written.tzid is None:
            continue
        try:
            wanted = instant_by_name(written)
        except ValueError as error:
            referee.fail(f"{label}: {key} {written.describe()}: {error}")
            continue
        methods = [("by embedded VTIMEZONE", lambda t: instant_by_vtimezone(t, zones))]
        methods += [(f"by {name}", lambda t, r=reader: r.instant(t, graph_id, key))
                    for name, reader in readers.items() if reader.problem is None]
        for method, reader in methods:
            try:
                got = reader(written)
            except ValueError as error:
                referee.fail(f"{label}: {key} {written.describe()}: {error}")
                continue
            referee.check(got == wanted, f"{label}: {key} {written.describe()} is {utc_text(got)} {method}, "
                                         f"{utc_text(wanted)} by its TZID's name")


def run_alone(arguments: argparse.Namespace) -> Referee:
    referee = Referee()
    raw = arguments.graph.read_bytes()
    check_lines(raw, referee)
    try:
        calendar = icalendar.Calendar.from_ical(unfold(raw).decode("utf-8", errors="replace"))
    except ValueError as error:
        referee.fail(f"parse: icalendar cannot read the file: {error}")
        return referee
    zones = check_calendar(calendar, referee)
    readers = zone_readers(unfold(raw).decode("utf-8", errors="replace"), calendar)
    for reader in readers.values():
        referee.check(reader.problem is None, f"calendar: {reader.name} cannot read the file: {reader.problem}")
    vevents = list(calendar.walk("VEVENT"))
    referee.check(bool(vevents), "calendar: no VEVENT")
    for index, vevent in enumerate(vevents, start=1):
        check_alone(vevent, index, zones, readers, referee)
    check_order(vevents, ZoneInfo(arguments.tz) if arguments.tz else ZoneInfo("UTC"), referee)
    return referee


def run(arguments: argparse.Namespace) -> Referee:
    if arguments.alone:
        return run_alone(arguments)
    referee = Referee()
    windows_zones = load_windows_zones(arguments.cldr)
    graph_events = load_graph_events(arguments.graph)
    raw = arguments.ics.read_bytes()
    all_day_zone = ZoneInfo(arguments.tz) if arguments.tz else ZoneInfo("UTC")

    check_lines(raw, referee)
    try:
        calendar = icalendar.Calendar.from_ical(unfold(raw).decode("utf-8", errors="replace"))
    except ValueError as error:
        referee.fail(f"parse: icalendar cannot read the file: {error}")
        return referee
    zones = check_calendar(calendar, referee)
    readers = zone_readers(unfold(raw).decode("utf-8", errors="replace"), calendar)
    for reader in readers.values():
        referee.check(reader.problem is None, f"calendar: {reader.name} cannot read the file: {reader.problem}")

    vevents = list(calendar.walk("VEVENT"))
    by_id: dict[str, icalendar.Event] = {}
    for index, vevent in enumerate(vevents, start=1):
        graph_id = vevent.get(EVENT_ID_PROPERTY)
        if not referee.check(graph_id is not None, f"VEVENT {index} (UID {vevent.get('UID')}): no {EVENT_ID_PROPERTY}"):
            continue
        graph_id = str(graph_id)
        if referee.check(graph_id not in by_id, f"VEVENT {index}: {EVENT_ID_PROPERTY} {graph_id!r} appears twice"):
            by_id[graph_id] = vevent

    known_ids = set()
    for event in graph_events:
        expected = expected_event(event, windows_zones)
        known_ids.add(expected.graph_id)
        vevent = by_id.get(expected.graph_id)
        if expected.problem is not None:
            referee.check(vevent is None, f"{expected.label}: bad Graph event ({expected.problem}) was converted")
        elif vevent is None:
            if not arguments.allow_missing:
                referee.fail(f"{expected.label}: no VEVENT with {EVENT_ID_PROPERTY} {expected.graph_id!r}")
        else:
            check_event(vevent, expected, zones, readers, referee)
    for graph_id in sorted(set(by_id) - known_ids):
        referee.fail(f"VEVENT {EVENT_ID_PROPERTY} {graph_id!r}: no such event in {arguments.graph.name}")

    check_order(vevents, all_day_zone, referee)
    return referee


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph", type=Path, help="Graph JSON given to graph-ics (with --alone: the .ics)")
    parser.add_argument("ics", type=Path, nargs="?", help=".ics written by graph-ics")
    parser.add_argument("--alone", action="store_true", help="check the .ics without Graph JSON")
    parser.add_argument("--tz", help="IANA zone given to graph-ics --tz (all-day events sort at its midnight)")
    parser.add_argument("--cldr", type=Path, default=DEFAULT_CLDR, help="CLDR windowsZones.xml")
    parser.add_argument("--allow-missing", action="store_true", help="tolerate Graph events without a VEVENT")
    arguments = parser.parse_args()
    if (arguments.ics is None) != arguments.alone:
        parser.error("give GRAPH.json OUT.ics, or --alone OUT.ics")
    warnings.simplefilter("ignore")  # icalendar's guesses; the checks report what matters
    try:
        referee = run(arguments)
    except (OSError, ValueError, ET.ParseError, ZoneInfoNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{referee.passed} passed, {referee.failed} failed")
    return 1 if referee.failed else 0


if __name__ == "__main__":
    sys.exit(main())
