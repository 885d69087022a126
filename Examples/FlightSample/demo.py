#!/usr/bin/env python3
"""`make demo`: the engine's main job on the flight sample service, done with the offline-odata tool.

Starts the sample service (odatapy, OData V4) on 127.0.0.1, then runs seven steps with the tool:
create a store with two defining requests, download, read offline inside and outside their scope
(with `explain`), a function import refused offline and answered through the mixed router, an
agency created offline and queued, upload and download, and the service and the store agreeing.
Each step shows the commands it ran, a short form of their output, and one sentence saying what the
step showed. Every step checks its result against the service itself; the first that does not give
the expected result ends the demo with a message saying what was expected, and exit status 1. The
service is stopped whatever happened; the store file stays for the user to explore.

    .venv/bin/python Examples/FlightSample/demo.py [--tool PATH] [--store PATH]

Environment: OOD_TOOL (default .build-release/release/offline-odata) and OOD_DEMO_STORE (default
demo/travel.store), both relative to the repository. Standard library only, but run it with the
Python that has the test backends installed (the repository's .venv): the service runs under the
same interpreter, through Tests/backends/backends.py.
"""
from __future__ import annotations

import argparse
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

REPOSITORY = Path(__file__).resolve().parents[2]
SAMPLE = REPOSITORY / "Examples" / "FlightSample"
sys.path.insert(0, str(REPOSITORY / "Tests" / "backends"))

import backends  # noqa: E402  (the one way the tests start the sample service)

DEFAULT_TOOL = ".build-release/release/offline-odata"
DEFAULT_STORE = "demo/travel.store"
#: The seeds' defining request, and one for American Airlines' flights (the generator always makes some).
AGENCIES = "TravelagencyCollection?$filter=country eq 'US'"
FLIGHTS = "FlightCollection?$filter=carrid eq 'AA'"
#: A small server page size, so the download shows server-driven paging (several pages per request).
PAGE_SIZE = 5
#: One tool call never takes long against a local service; a hang becomes a clear failure.
TOOL_TIMEOUT = 120
#: Output lines are cut to the terminal's width (130 columns when not on a terminal).
WIDTH = shutil.get_terminal_size((130, 24)).columns if sys.stdout.isatty() else 130
INDENT = b"    "
STEPS = 7


class StepFailed(Exception):
    """A step did not give the expected result; the message says what was expected and what came."""


@dataclass
class Result:
    """One tool run: its exit status and its output."""
    status: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """The standard output as JSON (Decimal for numbers with a fraction, so Edm.Decimal stays exact)."""
        try:
            return json.loads(self.stdout, parse_float=Decimal)
        except ValueError as error:
            raise StepFailed(f"expected JSON from the tool, got: {shorten(self.stdout.strip(), 300)!r} ({error})")


def shorten(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def shell_quote(word: str) -> str:
    """Quote a word so the printed command can be pasted into a shell. URLs hold both `$` and `'`,
    which single quotes render unreadably ('…'"'"'…'); double quotes with `$` escaped read better."""
    if word and all(c.isalnum() or c in "-_./=:,@+%" for c in word):
        return word
    if "'" not in word:
        return "'" + word + "'"
    return '"' + "".join("\\" + c if c in '$`"\\' else c for c in word) + '"'


def display_path(path: Path) -> str:
    """A path as the user would type it from the current directory."""
    absolute = os.path.abspath(path)  # not resolve(): keep symbolic links such as .build-release/release
    relative = os.path.relpath(absolute)
    return absolute if relative.startswith("..") else relative


def without_annotations(entity: dict) -> dict:
    """An entity's properties without `@odata.*` annotations (context, ETag), for display and comparison."""
    return {key: value for key, value in entity.items() if not key.startswith("@")}


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def print_output(text: str, style: str) -> None:
    """Print a tool's output short enough to read: OData answers as one line per entity (at most
    four), other JSON one line per key, text as it is; long lines end in `…`."""
    text = text.strip()
    if not text:
        return
    lines: list[str] = []
    data = None
    if style in ("odata", "json"):
        try:
            data = json.loads(text, parse_float=Decimal)
        except ValueError:
            data = None
    if style == "odata" and isinstance(data, dict) and isinstance(data.get("value"), list):
        rows = data["value"]
        lines = [compact(without_annotations(row)) for row in rows[:4]]
        if len(rows) > 4:
            lines.append(f"… {len(rows) - 4} more ({len(rows)} entities in all)")
        if not rows:
            lines = ["(no entities)"]
        if data.get("@odata.nextLink"):
            lines.append("… and more on the service's next page (@odata.nextLink)")
    elif style == "odata" and isinstance(data, dict):
        # Nulls left out: the line shows what the entity holds, and the service's answer and the
        # store's (which order the properties differently) read alike.
        lines = [compact({k: v for k, v in without_annotations(data).items() if v is not None})]
    elif isinstance(data, dict):
        lines = [f"{key}: {compact(value)}" for key, value in data.items()]
    else:
        lines = text.splitlines()
    if len(lines) > 8:
        lines = lines[:7] + [f"… {len(lines) - 7} more lines"]
    for line in lines:
        print("    " + shorten(line, WIDTH - 4))


class Tool:
    """Runs the offline-odata tool, showing each command as a user would type it."""

    def __init__(self, path: Path):
        self.path = path

    def run(self, *arguments: str | Path, style: str = "text", show: bool = True,
            terminal: bool = False) -> Result:
        words = [str(a) if not isinstance(a, Path) else display_path(a) for a in arguments]
        note = "" if show else "   # output read by the check"
        print("  $ offline-odata " + " ".join(shell_quote(w) for w in words) + note, flush=True)
        command = [str(self.path), *words]  # exactly what was shown, so it can be pasted
        try:
            if terminal and sys.stdout.isatty():
                result = self._run_on_terminal(command)
            else:
                done = subprocess.run(command, capture_output=True, text=True, timeout=TOOL_TIMEOUT,
                                      stdin=subprocess.DEVNULL)
                result = Result(done.returncode, done.stdout, done.stderr)
                if show:
                    print_output(result.stdout, style)
        except subprocess.TimeoutExpired:
            raise StepFailed(f"the tool did not finish within {TOOL_TIMEOUT} s")
        if show:
            for line in result.stderr.strip().splitlines()[:6]:
                print("    " + shorten(line, WIDTH - 4))
        return result

    def ok(self, *arguments: str | Path, **options: Any) -> Result:
        """Run, and fail the step unless the tool exits 0."""
        result = self.run(*arguments, **options)
        if result.status != 0:
            raise StepFailed(f"expected exit status 0, got {result.status}: "
                             f"{result.stderr.strip() or result.stdout.strip() or '(no output)'}")
        return result

    def _run_on_terminal(self, command: list[str]) -> Result:
        """Run with standard output on a pseudo-terminal, so the tool draws its progress bar (it draws
        none when piped), passing it through live while keeping the text for the checks."""
        main_fd, tool_fd = pty.openpty()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=tool_fd, stderr=subprocess.PIPE)
        os.close(tool_fd)
        captured = bytearray()
        at_line_start = True
        deadline = time.monotonic() + TOOL_TIMEOUT
        try:
            while True:
                if not select.select([main_fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    raise subprocess.TimeoutExpired(command, TOOL_TIMEOUT)
                try:
                    chunk = os.read(main_fd, 4096)
                except OSError:  # EIO: the tool closed the terminal (it exited)
                    break
                if not chunk:
                    break
                captured += chunk
                # Indent the tool's lines like the rest of its output, redrawn bar lines included.
                shown = bytearray()
                for piece in re.split(rb"(\n)", chunk.replace(b"\r\n", b"\n")):
                    if piece == b"\n":
                        shown += b"\n"
                        at_line_start = True
                    elif piece:
                        if at_line_start:
                            shown += INDENT
                            at_line_start = False
                        shown += piece.replace(b"\r", b"\r" + INDENT)
                sys.stdout.buffer.write(bytes(shown))
                sys.stdout.flush()
            stderr = process.stderr.read().decode("utf-8", "replace")
            status = process.wait(timeout=TOOL_TIMEOUT)
        finally:
            os.close(main_fd)
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stderr.close()
        # A terminal turns "\n" into "\r\n", and the bar redraws its line with "\r": keep each line's last state.
        text = captured.decode("utf-8", "replace").replace("\r\n", "\n")
        lines = [line.rsplit("\r", 1)[-1] for line in text.split("\n")]
        return Result(status, "\n".join(lines), stderr)


class Service:
    """Reads the sample service directly over HTTP: the demo's view of the truth, used by the checks."""

    def __init__(self, root: str):
        self.root = root

    def url(self, relative: str) -> str:
        return self.root + urllib.parse.quote(relative, safe="/?&=$,()'*:")

    def get(self, relative: str) -> Any | None:
        """The JSON answer, or None when the service answers 404."""
        return self._get(self.url(relative))

    def _get(self, url: str) -> Any | None:
        request = urllib.request.Request(url, headers={"Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read(), parse_float=Decimal)
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            raise StepFailed(f"the service answered {error.code} to GET {url}")
        except (urllib.error.URLError, OSError) as error:
            raise StepFailed(f"the service did not answer GET {url}: {error}")

    def all(self, relative: str) -> list[dict]:
        """Every entity of a collection read, following the service's next links."""
        page = self.get(relative)
        rows: list[dict] = []
        while True:
            if page is None:
                raise StepFailed(f"the service answered 404 while reading {relative}")
            rows += page["value"]
            if not page.get("@odata.nextLink"):
                return rows
            page = self._get(urllib.parse.urljoin(self.root, page["@odata.nextLink"]))


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise StepFailed(message)


def agency_keys(rows: list[dict]) -> list[str]:
    return sorted(row["agencynum"] for row in rows)


class Demo:
    """The scenario. Each step method returns the sentence that says what it showed; values found
    by one step (an agency number, the new agency) are kept for the later ones."""

    def __init__(self, tool: Tool, store: Path, service: Service):
        self.tool = tool
        self.store = store
        self.service = service
        self.known_agency: dict = {}
        self.new_agency = ""

    def step_create(self) -> str:
        for sibling in (self.store, *(self.store.with_name(self.store.name + suffix)
                                      for suffix in ("-wal", "-shm", "-journal"))):
            sibling.unlink(missing_ok=True)  # a fresh store on every run
        self.store.parent.mkdir(parents=True, exist_ok=True)
        self.tool.ok("store", "create", self.store, "--metadata", SAMPLE / "metadata-v4.xml",
                     "--service", self.service.root,
                     "--defining", f"Agencies={AGENCIES}", "--defining", f"Flights={FLIGHTS}")
        self.tool.ok("store", "info", self.store)
        info = self.tool.ok("store", "info", self.store, "--json", show=False).json()
        defining = {d["name"]: d for d in info.get("definingRequests", [])}
        expect(set(defining) == {"Agencies", "Flights"},
               f"expected the defining requests Agencies and Flights, the store has {sorted(defining)}")
        expect(defining["Agencies"]["url"] == AGENCIES and defining["Flights"]["url"] == FLIGHTS,
               f"the store keeps other URLs than given: {compact(list(defining.values()))}")
        expect(all(d.get("lastDownload") is None for d in defining.values()),
               "a store just created should never have downloaded")
        return ("The store file exists, made from the service's $metadata, with two defining requests "
                "(US travel agencies, American Airlines flights) and no data yet.")

    def step_download(self) -> str:
        self.tool.ok("download", self.store, terminal=True)
        status = self.tool.ok("status", self.store, "--json", show=False).json()
        missing = [d["name"] for d in status.get("definingRequests", []) if not d.get("lastDownload")]
        expect(not missing, f"expected every defining request downloaded, not yet: {missing}")
        counts = []
        for name, url in (("US agencies", AGENCIES), ("AA flights", FLIGHTS)):
            entity_set = url.split("?")[0]
            stored = self.tool.ok("request", self.store, f"{entity_set}/$count").stdout.strip()
            expected = len(self.service.all(url))
            expect(stored == str(expected),
                   f"expected {expected} {name} in the store (the service's count), the store counts {stored!r}")
            counts.append(f"{expected} {name}")
        return (f"The download brought {counts[0]} and {counts[1]} into the store: "
                "exactly what the service returns for the two defining requests.")

    def step_offline_reads(self) -> str:
        inside = "TravelagencyCollection?$filter=country eq 'US' and city eq 'New York'"
        read = self.tool.ok("request", self.store, inside + "&$select=agencynum,name,city&$orderby=agencynum",
                            style="odata").json()["value"]
        truth = self.service.all(inside)
        expect(read and agency_keys(read) == agency_keys(truth),
               f"expected the service's New York agencies {agency_keys(truth)}, the store answered {agency_keys(read)}")
        self.known_agency = read[0]
        self.tool.ok("explain", self.store, inside)
        explained = self.tool.ok("explain", self.store, inside, "--json", show=False).json()
        expect(explained.get("insideScope") is True and "Agencies" in explained.get("definingRequests", []),
               f"expected explain to put the read inside the defining request Agencies, it says {compact(explained)}")

        outside = "TravelagencyCollection?$filter=city eq 'Beijing'"
        read_outside = self.tool.ok("request", self.store, outside, style="odata").json()["value"]
        truth_outside = self.service.all(outside)
        expect(truth_outside, "expected the service to have agencies in Beijing (the generator always makes some)")
        expect(read_outside == [],
               f"expected no Beijing agencies in a store of US agencies, it answered {agency_keys(read_outside)}")
        self.tool.ok("explain", self.store, outside)
        explained = self.tool.ok("explain", self.store, outside, "--json", show=False).json()
        expect(explained.get("insideScope") is False,
               f"expected explain to put the Beijing read outside every defining request, it says {compact(explained)}")
        return (f"Inside the scope the store answered with the {len(read)} New York agencies the service has, and "
                f"explain names the defining request 'Agencies'; the service has {len(truth_outside)} agencies in "
                "Beijing, outside every defining request, so the store returns none and explain says why.")

    def step_function_import(self) -> str:
        agencynum = self.known_agency["agencynum"]
        call = f"GetAgencyDetails(agencynum='{agencynum}')"
        refused = self.tool.run("request", self.store, call)
        expect(refused.status != 0 and "GetAgencyDetails" in refused.stderr,
               f"expected the offline store to refuse the function import with a message naming it, got exit "
               f"status {refused.status} and {shorten(refused.stderr.strip() or refused.stdout.strip(), 200)!r}")
        route = self.tool.ok("route", self.store, call, "--json", style="json").json()
        expect(route.get("destination") == "online",
               f"expected the router to send the function import online, it says {compact(route)}")
        answered = self.tool.ok("request", self.store, "--mode", "mixed", call, style="odata")
        entity = answered.json()
        truth = self.service.get(f"TravelagencyCollection('{agencynum}')")
        expect("route: online" in answered.stderr,
               f"expected the mixed router to say 'route: online', it said {answered.stderr.strip()!r}")
        expect(isinstance(entity, dict) and truth is not None
               and entity.get("agencynum") == agencynum and entity.get("name") == truth["name"],
               f"expected the service's agency {agencynum} ({truth and truth['name']!r}), got {compact(entity)}")
        return (f"The offline store refuses GetAgencyDetails (a function import); the router sends it online, "
                f"and the service answered with agency {agencynum}, {entity['name']!r}.")

    def step_create_offline(self) -> str:
        highest = self.tool.ok("request", self.store, "--mode", "online",
                               "TravelagencyCollection?$orderby=agencynum desc&$top=1&$select=agencynum",
                               style="odata").json()["value"]
        expect(len(highest) == 1, "expected the service to have agencies")
        self.new_agency = str(int(highest[0]["agencynum"]) + 1).zfill(8)
        body = {"agencynum": self.new_agency, "name": "Demo Travel (offline)",
                "city": "Boston", "country": "US"}
        self.tool.ok("request", self.store, "--method", "POST", "TravelagencyCollection", "--body", compact(body))
        local = self.tool.ok("request", self.store, f"TravelagencyCollection('{self.new_agency}')", style="odata").json()
        expect(local.get("name") == body["name"],
               f"expected the store to answer with the agency just created, got {compact(local)}")
        self.tool.ok("status", self.store)
        queue = self.tool.ok("status", self.store, "--json", show=False).json().get("queue", [])
        expect(len(queue) == 1 and queue[0].get("method") == "POST" and "TravelagencyCollection" in queue[0].get("url", ""),
               f"expected one queued POST to TravelagencyCollection, the queue holds {compact(queue)}")
        expect(self.service.get(f"TravelagencyCollection('{self.new_agency}')") is None,
               f"expected the service not to know agency {self.new_agency} before the upload")
        return (f"Agency {self.new_agency} was created offline: the store answers with it at once, status shows "
                "the create waiting in the queue, and the service does not know it yet.")

    def step_sync(self) -> str:
        self.tool.ok("upload", self.store)
        status = self.tool.ok("status", self.store, "--json", show=False).json()
        expect(status.get("queue") == [] and status.get("errorArchive") == [],
               f"expected an empty queue and error archive after the upload, status says {compact(status)}")
        expect(self.service.get(f"TravelagencyCollection('{self.new_agency}')") is not None,
               f"expected the service to have agency {self.new_agency} after the upload")
        before = {d["name"]: d for d in status.get("definingRequests", [])}
        self.tool.ok("download", self.store, terminal=True)
        after = self.tool.ok("status", self.store, "--json", show=False).json().get("definingRequests", [])
        stale = [d["name"] for d in after if not d.get("lastDownload")
                 or d["lastDownload"] <= (before.get(d["name"], {}).get("lastDownload") or "")]
        expect(after and not stale, f"expected a newer download time on every defining request, not on {stale}")
        delta = all(d.get("hasDeltaLink") for d in before.values())
        return (f"The upload sent the queued create (the service has agency {self.new_agency} now, the queue is "
                "empty); the download ran again for both defining requests"
                + (", asking only for the changes through the delta links the first one kept." if delta else "."))

    def step_agree(self) -> str:
        key = f"TravelagencyCollection('{self.new_agency}')"
        online = self.tool.ok("request", self.store, "--mode", "online", key, style="odata").json()
        offline = self.tool.ok("request", self.store, key, style="odata").json()
        expect(without_annotations(online) == without_annotations(offline),
               f"expected the same agency from the service and the store:\n  service: "
               f"{compact(without_annotations(online))}\n  store:   {compact(without_annotations(offline))}")
        expect(offline.get("ChangedAt") is not None,
               "expected the store to hold the service's version of the agency (ChangedAt set by the service)")
        # The whole defining request too; the service's answer is read directly, every page of it
        # (the tool's online read prints the first page only).
        us = AGENCIES + "&$select=agencynum,name,city&$orderby=agencynum"
        from_store = self.tool.ok("request", self.store, us, style="odata").json()["value"]
        from_service = self.service.all(us)
        expect([without_annotations(a) for a in from_service] == [without_annotations(a) for a in from_store],
               f"expected the same US agencies from the service and the store: service {agency_keys(from_service)}, "
               f"store {agency_keys(from_store)}")
        return (f"The service and the store agree: agency {self.new_agency} reads the same from both (with the "
                f"ChangedAt {offline['ChangedAt']} the service set), and the store's {len(from_store)} US agencies are exactly the "
                "service's (read directly, every page).")

    def steps(self) -> list[tuple[str, Callable[[], str]]]:
        return [
            ("create a store with two defining requests", self.step_create),
            ("download the defining requests", self.step_download),
            ("read offline, inside and outside the defining requests", self.step_offline_reads),
            ("a function import: refused offline, answered online by the mixed router", self.step_function_import),
            ("create an agency offline; the queue", self.step_create_offline),
            ("upload, then download", self.step_sync),
            ("the service and the store agree", self.step_agree),
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the OfflineOData demo on the flight sample service.")
    parser.add_argument("--tool", default=os.environ.get("OOD_TOOL"),
                        help=f"the offline-odata tool (default: $OOD_TOOL, else {DEFAULT_TOOL} in the repository)")
    parser.add_argument("--store", default=os.environ.get("OOD_DEMO_STORE"),
                        help=f"the store file to create (default: $OOD_DEMO_STORE, else {DEFAULT_STORE} in the repository)")
    args = parser.parse_args(argv)
    # A path the user gives is taken from the current directory, the defaults from the repository's.
    tool_path = Path(os.path.abspath(args.tool)) if args.tool else REPOSITORY / DEFAULT_TOOL
    store = Path(os.path.abspath(args.store)) if args.store else REPOSITORY / DEFAULT_STORE
    if not os.access(tool_path, os.X_OK):
        print(f"demo: no offline-odata tool at {tool_path}: build it first with 'make cmake-build' "
              "(or give its path in OOD_TOOL).", file=sys.stderr)
        return 1

    print("Starting the flight sample service (OData V4) on 127.0.0.1 ...", flush=True)
    try:
        backend = backends.start_v4(page_size=PAGE_SIZE, data="small")
    except Exception as error:  # the backend's own message carries the server's output
        print(f"demo: the sample service did not start ({error}).\nIs the venv with the backends set up? "
              "'make backends-venv' installs them; run this script with .venv/bin/python.", file=sys.stderr)
        return 1
    try:
        print(f"The service answers at {backend.service_root}\n")
        demo = Demo(Tool(tool_path), store, Service(backend.service_root))
        for number, (title, step) in enumerate(demo.steps(), start=1):
            print(f"== Step {number} of {STEPS}: {title}", flush=True)
            try:
                sentence = step()
            except (StepFailed, KeyError, TypeError, IndexError, AttributeError) as failure:
                # The other errors mean an answer had another shape than the step expects.
                reason = failure if isinstance(failure, StepFailed) else \
                    f"an answer had an unexpected shape ({type(failure).__name__}: {failure})"
                sys.stdout.flush()
                print(f"\nFAILED: step {number} of {STEPS} ({title}) did not give the expected result:\n  {reason}",
                      file=sys.stderr)
                return 1
            print(f"  OK: {sentence}\n", flush=True)
    except KeyboardInterrupt:
        print("\ndemo: interrupted", file=sys.stderr)
        return 130
    finally:
        backend.stop()
        print("The sample service is stopped.", flush=True)

    shown_store = display_path(store)
    shown_tool = display_path(tool_path)
    print(f"\nAll {STEPS} steps gave the expected result.")
    print(f"The store stays at {shown_store}. Two commands to try (they work offline):")
    print(f"  {shown_tool} status {shell_quote(shown_store)}")
    print(f"  {shown_tool} request {shell_quote(shown_store)} "
          + shell_quote("TravelagencyCollection?$filter=city eq 'Boston'&$select=agencynum,name,city"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
