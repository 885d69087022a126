"""Media resources on the test services (issue 35): seeded stream content, media ETags, `Range`
on `GET .../$value`, a log of the stream transfers, and hostile answers on demand.

Used by odatapy_server.py (V4) and mocksap_server.py (V2); the pieces know nothing of either.

* Seed rows of a media entity set may carry `"@mediaSize": N` (N deterministic bytes made from the
  key, `content_for`) and `"@mediaType": "image/png"`; they are not properties.
* A media ETag is strong and follows the content (`etag_for`): the same bytes have the same ETag
  after a reset, and a change of the content changes it.
* `MediaLayer` wraps the WSGI app:
  - `GET .../$value` with `Range: bytes=A-` or `bytes=A-B` (and `If-Range` equal to the ETag, when
    given) answers `206` with `Content-Range`; every `$value` answer says `Accept-Ranges: bytes`.
  - `GET /_media_log` → `{"gets": [{"path", "status", "bytes"}], "posts": [...], "puts": [...]}`:
    every stream transfer since the last reset; `POST /_reset` clears it (and is passed on).
  - `POST /_media_hostile` with `{"unannounced": true}` sends the next `$value` bodies without a
    `Content-Length` (close-delimited), `{"location": "http://elsewhere/..."}` answers a media POST with that `Location`,
    `{"create_location": "..."}` answers a JSON create the service made `204` with that `Location`
    (and `OData-EntityId`) and no body, as a service whose `Location` the client cannot read,
    `{"no_ranges": true}` ignores `Range` (a whole `200`, as a service without ranges does),
    `{"no_etag": true}` sends `$value` answers without their `ETag` (the payload still announces it),
    `{"hold_patch": true}` holds the next `PATCH` (counted in the log's `"held"`) until
    `POST /_media_release`, then answers it 503 without applying it (the properties of a media
    entity never set: its upload killed between its `POST` and its `PATCH`);
    `{}` turns it all off.
  - A media `POST`/`PUT` whose body ends before its `Content-Length` (the client killed mid-body)
    is answered 400 and not applied, as a real server does (odatapy alone would store the part).
* `StreamProperties` serves V4 `Edm.Stream` properties, which odatapy routes nowhere: `GET
  Set(key)/Prop` (through the layer above: ranges, the log, hostile modes) and `PUT Set(key)/Prop`
  (`If-Match` against the entity's ETag). The content is kept on the entity (`stream_props`); seed
  rows may carry `"@streams": {"Prop": N}` (N bytes from `content_for(set, key + (Prop,), N)`). A
  changed stream property is a change of its entity (a new ETag, in the delta), as for media.
  The JSON of an entity of a set with stream properties (a read, a listing, a delta) announces
  each stream's media ETag, `Prop@odata.mediaEtag`, as OData 4.0 says (odatapy does not).
* `POST /_media_quiet_change` with `{"set", "key", "property" ("" or absent: the media entity's
  own stream), "content", "type"}` replaces a stream **without changing its entity's ETag** (a
  service whose entity ETag does not cover its streams): the media ETag follows the content, and
  the entity is in the next delta (its properties and ETag as they were).
"""
from __future__ import annotations

import hashlib
import io
import json
import re
import threading

BLOCK = 1 << 16
RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")


def content_for(set_name: str, key: object, size: int, version: int = 1) -> bytes:
    """`size` bytes that depend on the set, the key and a version, cheap to make for 100 MB."""
    seed = hashlib.sha256(f"{set_name}|{key!r}|{version}".encode()).digest()
    block = (seed * (BLOCK // len(seed) + 1))[:BLOCK]
    whole, rest = divmod(size, BLOCK)
    return block * whole + block[:rest]


def etag_for(content: bytes | None) -> str | None:
    if content is None:
        return None
    return '"' + hashlib.sha256(content).hexdigest()[:20] + '"'


class MediaLayer:
    """The WSGI middleware described above, around `app`."""

    def __init__(self, app, streams: "StreamProperties | None" = None):
        self.app = app
        self.streams = streams
        self.lock = threading.Lock()
        self.log = {"gets": [], "posts": [], "puts": []}
        self.hostile: dict = {}
        self.released = threading.Event()

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if path == "/_media_log" and method == "GET":
            with self.lock:
                body = json.dumps(self.log).encode()
            start_response("200 OK", [("Content-Type", "application/json"),
                                      ("Content-Length", str(len(body)))])
            return [body]
        if path == "/_media_hostile" and method == "POST":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            with self.lock:
                self.hostile = json.loads(environ["wsgi.input"].read(length) or b"{}")
                self.released.clear()
            start_response("204 No Content", [])
            return [b""]
        if path == "/_media_release" and method == "POST":
            self.released.set()
            start_response("204 No Content", [])
            return [b""]
        if path == "/_reset" and method == "POST":
            self.reset()
        if method in ("PATCH", "MERGE") and self._take_hold():
            return self._hold(start_response)
        if path.endswith("/$value") and method == "GET":
            return self._get_stream(environ, start_response, path)
        if path == "/_media_quiet_change" and method == "POST" and self.streams is not None:
            length = int(environ.get("CONTENT_LENGTH") or 0)
            return self.streams.quiet_change(json.loads(environ["wsgi.input"].read(length) or b"{}"),
                                             start_response)
        if method == "GET" and self.streams is not None and self.streams.annotates(path):
            status, headers, body = self._call(environ)
            if status.startswith("200"):
                body = self.streams.annotate(path, body)
                headers = [(k, v) for k, v in headers if k.lower() != "content-length"] \
                    + [("Content-Length", str(len(body)))]
            start_response(status, headers)
            return [body]
        if self.streams is not None and self.streams.match(path) is not None:
            if method == "GET":
                return self._get_stream(environ, start_response, path, self.streams)
            if method == "PUT":
                return self._write_stream(environ, start_response, path, method, self.streams)
        if method in ("POST", "PUT") and not self._is_json(environ) and not path.startswith("/_") \
                and "$batch" not in path:
            return self._write_stream(environ, start_response, path, method)
        if method == "POST" and not path.startswith("/_") and "$batch" not in path:
            with self.lock:
                location = self.hostile.get("create_location")
            if location is not None:
                return self._create_answered_by(location, environ, start_response)
        return self.app(environ, start_response)

    def _create_answered_by(self, location: str, environ, start_response):
        """The create applied, answered `204` naming `location` and nothing else (see above)."""
        status, headers, body = self._call(environ)
        if not status.startswith("201"):
            start_response(status, headers)
            return [body]
        kept = [(k, v) for k, v in headers
                if k.lower() not in ("location", "odata-entityid", "content-length", "content-type")]
        start_response("204 No Content", kept + [("Location", location), ("OData-EntityId", location),
                                                 ("Content-Length", "0")])
        return [b""]

    def reset(self) -> None:
        """Forgets the log and the hostile modes, and lets a held PATCH go."""
        with self.lock:
            self.log = {"gets": [], "posts": [], "puts": []}
            self.hostile = {}
        self.released.set()

    @staticmethod
    def _is_json(environ) -> bool:
        kind = (environ.get("CONTENT_TYPE") or "").lower()
        return kind.startswith("application/json") or kind.startswith("multipart/") \
            or kind.startswith("application/atom") or kind.startswith("application/xml")

    def _call(self, environ, app=None):
        captured = {}

        def capture(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, list(headers)
            return lambda data: None

        body = b"".join((app or self.app)(environ, capture))
        return captured["status"], captured["headers"], body

    def _take_hold(self) -> bool:
        """Whether this PATCH is the one to hold (once per `hold_patch`)."""
        with self.lock:
            return bool(self.hostile.pop("hold_patch", False))

    def _hold(self, start_response):
        with self.lock:
            self.log["held"] = self.log.get("held", 0) + 1
        self.released.wait(timeout=120)
        start_response("503 Service Unavailable", [("Content-Length", "0")])
        return [b""]

    def _write_stream(self, environ, start_response, path, method, app=None):
        announced = environ.get("CONTENT_LENGTH")
        if announced:
            wanted, chunks, received = int(announced), [], 0
            while received < wanted:
                chunk = environ["wsgi.input"].read(min(BLOCK * 16, wanted - received))
                if not chunk:
                    break
                chunks.append(chunk)
                received += len(chunk)
            if received < wanted:  # the client went away mid-body: nothing is applied
                with self.lock:
                    self.log["posts" if method == "POST" else "puts"].append(
                        {"path": path, "status": 400, "bytes": received, "truncated": True})
                start_response("400 Bad Request", [("Content-Length", "0")])
                return [b""]
            environ = dict(environ, **{"wsgi.input": io.BytesIO(b"".join(chunks))})
        status, headers, body = self._call(environ, app)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        with self.lock:
            self.log["posts" if method == "POST" else "puts"].append(
                {"path": path, "status": int(status.split()[0]), "bytes": length})
            location = self.hostile.get("location")
        if location and method == "POST":
            headers = [(k, v) for k, v in headers if k.lower() != "location"] + [("Location", location)]
        start_response(status, headers)
        return [body]

    def _get_stream(self, environ, start_response, path, app=None):
        wanted = environ.get("HTTP_RANGE")
        inner = {k: v for k, v in environ.items() if k not in ("HTTP_RANGE", "HTTP_IF_RANGE")}
        status, headers, body = self._call(inner, app)
        code = int(status.split()[0])
        etag = next((v for k, v in headers if k.lower() == "etag"), None)
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        if code == 200:
            headers.append(("Accept-Ranges", "bytes"))
            match = RANGE.match(wanted or "")
            if_range = environ.get("HTTP_IF_RANGE")
            if match and (if_range is None or if_range == etag) and not self.hostile.get("no_ranges"):
                start = int(match.group(1))
                end = int(match.group(2)) if match.group(2) else len(body) - 1
                if start >= len(body):
                    status, code = "416 Range Not Satisfiable", 416
                    headers.append(("Content-Range", f"bytes */{len(body)}"))
                    body = b""
                else:
                    end = min(end, len(body) - 1)
                    headers.append(("Content-Range", f"bytes {start}-{end}/{len(body)}"))
                    status, code = "206 Partial Content", 206
                    body = body[start:end + 1]
        with self.lock:
            self.log["gets"].append({"path": path, "status": code, "bytes": len(body)})
            hostile = dict(self.hostile)
        if hostile.get("no_etag"):
            headers = [(k, v) for k, v in headers if k.lower() != "etag"]
        if code in (200, 206) and hostile.get("unannounced"):
            start_response(status, headers)  # no length: wsgiref closes the connection after it
            return (body[i:i + BLOCK] for i in range(0, len(body), BLOCK))
        start_response(status, headers + [("Content-Length", str(len(body)))])
        return [body]


ENTITY_PATH = re.compile(r"^/([A-Za-z_][A-Za-z0-9_]*)(?:\(\d+\))?$")
STREAM_PATH = re.compile(r"^/([A-Za-z_][A-Za-z0-9_]*)\((\d+)\)/([A-Za-z_][A-Za-z0-9_]*)$")


class StreamProperties:
    """A WSGI app for the `Edm.Stream` properties of entities with one integer key (see above).

    `model` is odatapy_server's Model (`sets`, `types` with `props` and `keys`); `store()` gives the
    current LinkingStore (it is replaced by a reset); `next_etag` makes an entity's next ETag."""

    def __init__(self, model, store, next_etag):
        self.model, self.store, self.next_etag = model, store, next_etag

    def names(self, set_name: str) -> list[str]:
        if set_name not in self.model.sets:
            return []
        props = self.model.types[self.model.sets[set_name]["type"]]["props"]
        return [name for name, attrs in props.items() if attrs.get("Type") == "Edm.Stream"]

    def match(self, path: str):
        found = STREAM_PATH.match(path)
        if not found or found.group(3) not in self.names(found.group(1)):
            return None
        return found.group(1), int(found.group(2)), found.group(3)

    def __call__(self, environ, start_response):
        set_name, key, prop = self.match(environ.get("PATH_INFO", ""))
        store = self.store()
        with store.lock:
            keys = self.model.types[self.model.sets[set_name]["type"]]["keys"]
            entity = next((e for e in store.entities(set_name) if e.get_value(keys[0]) == key), None)
            if entity is None:
                return self._answer(start_response, "404 Not Found")
            streams = getattr(entity, "stream_props", None) or {}
            if environ.get("REQUEST_METHOD") == "PUT":
                if_match = environ.get("HTTP_IF_MATCH")
                if if_match and if_match != "*" and if_match != entity.etag:
                    return self._answer(start_response, "412 Precondition Failed")
                length = int(environ.get("CONTENT_LENGTH") or 0)
                content = environ["wsgi.input"].read(length)
                kind = environ.get("CONTENT_TYPE") or "application/octet-stream"
                entity.stream_props = dict(streams, **{prop: (content, kind)})
                entity.etag = self.next_etag(entity.etag)
                store.record_change(set_name, entity, "changed")
                return self._answer(start_response, "204 No Content", [("ETag", etag_for(content) or "")])
            content, kind = streams.get(prop, (None, None))
            if content is None:
                return self._answer(start_response, "204 No Content")
            etag = etag_for(content) or ""
            if environ.get("HTTP_IF_NONE_MATCH") == etag:
                return self._answer(start_response, "304 Not Modified", [("ETag", etag)])
            start_response("200 OK", [("Content-Type", kind), ("ETag", etag),
                                      ("Content-Length", str(len(content)))])
            return [content]

    def annotates(self, path: str) -> bool:
        """Whether `path` reads entities of a set with stream properties (`/Set`, `/Set(key)`)."""
        found = ENTITY_PATH.match(path)
        return bool(found) and bool(self.names(found.group(1)))

    def annotate(self, path: str, body: bytes) -> bytes:
        """The JSON answer with `Prop@odata.mediaEtag` on each entity that has a value for Prop."""
        set_name = ENTITY_PATH.match(path).group(1)
        try:
            answer = json.loads(body)
        except ValueError:
            return body
        store = self.store()
        keys = self.model.types[self.model.sets[set_name]["type"]]["keys"]
        with store.lock:
            by_key = {e.get_value(keys[0]): e for e in store.entities(set_name)}
        for entry in answer.get("value", [answer]) if isinstance(answer, dict) else []:
            if not isinstance(entry, dict) or "@removed" in entry:
                continue
            entity = by_key.get(entry.get(keys[0]))
            streams = getattr(entity, "stream_props", None) or {}
            for prop, (content, _kind) in streams.items():
                if content is not None:
                    entry[prop + "@odata.mediaEtag"] = etag_for(content)
        return json.dumps(answer).encode()

    def quiet_change(self, request: dict, start_response):
        """`POST /_media_quiet_change` (see the module's description)."""
        set_name, key, prop = request["set"], request["key"], request.get("property") or ""
        content = request["content"].encode()
        kind = request.get("type", "application/octet-stream")
        store = self.store()
        with store.lock:
            keys = self.model.types[self.model.sets[set_name]["type"]]["keys"]
            entity = next((e for e in store.entities(set_name) if e.get_value(keys[0]) == key), None)
            if entity is None:
                return self._answer(start_response, "404 Not Found")
            if prop:
                entity.stream_props = dict(getattr(entity, "stream_props", None) or {}, **{prop: (content, kind)})
            else:
                entity.media_content, entity.media_content_type = content, kind
            store.record_change(set_name, entity, "changed")  # the media ETag follows; the ETag stays
        return self._answer(start_response, "204 No Content")

    @staticmethod
    def _answer(start_response, status: str, headers: list | None = None):
        start_response(status, (headers or []) + [("Content-Length", "0")])
        return [b""]


def seed_stream_properties(set_name: str, keys: tuple, sizes: dict) -> dict:
    """The `stream_props` of a seeded entity from its row's `"@streams": {"Prop": N}`."""
    return {prop: (content_for(set_name, keys + (prop,), int(size)), "image/jpeg")
            for prop, size in sizes.items()}
