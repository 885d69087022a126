"""Media entities on the V2 test service (issue 35): mock-sap serves none, so mocksap_server.py
routes them here before its own dispatch. For the entity sets whose type says `m:HasStream="true"`:

* `GET Set('key')/$value`: the stream with its content type and a strong media ETag that follows
  the content (`If-None-Match` equal to it: 304).
* `PUT Set('key')/$value`: replaces the stream (`If-Match` against the entity's ETag, 412 if it
  differs); the entity's `ChangedAt` moves, so its ETag and the delta see the change.
* `POST Set` with a body that is not JSON or XML: a media entity with a key the service assigns
  (the key property is `sap:creatable="false"`), its stream the body; 201 with `Location` and the
  entity.
* Reads of entities of those sets carry SAP's `__metadata` media members (`media_src`,
  `edit_media`, `content_type`, `media_etag`).
* Seed rows may carry `"@mediaSize": N` and `"@mediaType"` (the content made by
  media_streams.content_for, as on the V4 service).
* `GET /_media_log` lists the stream transfers (`gets`, `posts`, `puts`), cleared by `/_reset`.
* `POST /_media_quiet_change` (`{"set", "key", "content", "type"}`) replaces a stream without
  changing its entity's ETag (a service whose ETag does not cover the stream; see `quiet_change`).
"""
from __future__ import annotations

import json
import re
import threading
import xml.etree.ElementTree as ET
from urllib.parse import unquote

from media_streams import content_for, etag_for

EDM = "{http://schemas.microsoft.com/ado/2008/09/edm}"
METADATA = "{http://schemas.microsoft.com/ado/2007/08/dataservices/metadata}"
ENTITY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\('([^']*)'\)(/\$value)?$")


class V2Media:
    def __init__(self, edmx: bytes, seed: dict):
        root = ET.fromstring(edmx)
        schema_el = next(root.iter(EDM + "Schema"))
        media_types = {et.get("Name") for et in schema_el.findall(EDM + "EntityType")
                       if et.get(METADATA + "HasStream") == "true"}
        container = schema_el.find(EDM + "EntityContainer")
        self.sets = {es.get("Name"): es.get("EntityType").split(".")[-1] for es in container.findall(EDM + "EntitySet")
                     if es.get("EntityType").split(".")[-1] in media_types}
        self.seed = seed
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.log = {"gets": [], "posts": [], "puts": []}
            self.contents: dict[tuple[str, str], tuple[bytes, str]] = {}
            for set_name in self.sets:
                for row in self.seed.get(set_name, []):
                    if "@mediaSize" in row:
                        key = str(next(v for k, v in row.items() if not k.startswith("@")))
                        self.contents[(set_name, key)] = (content_for(set_name, (key,), int(row["@mediaSize"])),
                                                          row.get("@mediaType", "application/octet-stream"))

    def log_body(self) -> bytes:
        with self.lock:
            return json.dumps(self.log).encode()

    def route(self, rest: str, method: str):
        """(set, key or None, is_value) when `rest` is a media route this layer answers, else None."""
        rest = unquote(rest)
        if rest in self.sets and method in ("GET", "POST"):
            return rest, None, False
        found = ENTITY.match(rest)
        if found and found.group(1) in self.sets:
            return found.group(1), found.group(2), bool(found.group(3))
        return None

    def stream(self, set_name: str, key: str):
        with self.lock:
            return self.contents.get((set_name, key))

    def store(self, set_name: str, key: str, content: bytes, kind: str, kind_of_log: str, path: str) -> None:
        with self.lock:
            self.contents[(set_name, key)] = (content, kind)
            self.log[kind_of_log].append({"path": path, "status": 201 if kind_of_log == "posts" else 204,
                                          "bytes": len(content)})

    def quiet_change(self, set_name: str, key: str, content: bytes, kind: str) -> bool:
        """Replaces a stream without changing its entity (`POST /_media_quiet_change` with `{"set",
        "key", "content", "type"}`): the media ETag follows the content, the entity's ETag stays, and
        no delta sees it (a full read does). False when the service has no such stream."""
        with self.lock:
            if (set_name, key) not in self.contents:
                return False
            self.contents[(set_name, key)] = (content, kind)
            return True

    def logged_get(self, path: str, status: int, size: int) -> None:
        with self.lock:
            self.log["gets"].append({"path": path, "status": status, "bytes": size})

    def decorate(self, set_name: str, body: bytes, _unused=None) -> bytes:
        """Adds the media members to the `__metadata` of each entity of a read's JSON body."""
        try:
            document = json.loads(body)
        except ValueError:
            return body
        payload = document.get("d") if isinstance(document, dict) else None
        if not isinstance(payload, dict):
            return body
        entities = payload.get("results") if isinstance(payload.get("results"), list) else [payload]
        for entity in entities:
            meta = entity.get("__metadata") if isinstance(entity, dict) else None
            if not isinstance(meta, dict) or "uri" not in meta:
                continue
            key = unquote(meta["uri"]).rsplit("('", 1)[-1].rstrip("')")
            stream = self.stream(set_name, key)
            meta["media_src"] = meta["uri"] + "/$value"
            meta["edit_media"] = meta["uri"] + "/$value"
            meta["content_type"] = stream[1] if stream else "application/octet-stream"
            if stream:
                meta["media_etag"] = etag_for(stream[0])
        return json.dumps(document).encode()
