#!/usr/bin/env python3
"""A generic OData V4 test backend on odatapy 5.3.0: any CSDL 4.0 EDMX plus a seed JSON file.

    python Tests/backends/odatapy_server.py EDMX SEED [--port 0] [--page-size N] [--autokey SET]...

* Serves the EDMX's service at http://127.0.0.1:PORT/ (binds 127.0.0.1 only) and prints exactly
  `READY <port>` on stdout once it accepts requests. Runs until killed.
* SEED is `{"<EntitySet>": [{...}, ...], ...}` in V4 JSON value form (as
  Examples/FlightSample/generate.py writes it); values are converted to the EDMX's types.
* Navigation is derived from the EDMX's referential constraints (odatapy keeps links in a relation
  table of its own and does not look at foreign keys): for the seed, and again after every
  create/update/delete, so a POSTed Booking with agencynum "00000007" shows up under
  TravelagencyCollection('00000007')/AgencyBookings.
* Every entity set carries ETags (W/"n" version counters): PATCH/PUT/DELETE without If-Match → 428,
  with a stale one → 412.
* --page-size N: server-driven paging (@odata.nextLink with $skiptoken); 0 (default) = no paging.
* --autokey SET: POST to SET may omit its last key part; the server assigns max+1 (zero-padded to
  MaxLength for string keys such as agencynum "00000041").
* --change-stamp PROP: every create/update sets the DateTimeOffset PROP to now (UTC, ms), as
  SAP services do with their change timestamps (the ETag stays odatapy's version counter).
* POST /_reset restores the seed (data, links, ETags, change log) and answers 204.
* POST /_conflict {"path": "Set(key)", "status": 409} (test only): the next change (PATCH, PUT,
  MERGE, DELETE) of that entity answers `status` (409 by default) with an OData error, once, as a
  service whose business rules refuse a change answers; POST /_reset forgets it. A stale If-Match
  is answered 412 by odatapy itself.
* Function and action imports of the flight sample are implemented when the EDMX declares them:
  GetAgencyDetails(agencynum=...), GetFlightDetails(carrid=...,connid=...,fldate=...),
  POST UpdateAgencyPhoneNo {"agencynum": ..., "telephone": ...}.
* --repeatable: OASIS Repeatable Requests 1.0 (see `Repeatability` below). $metadata references
  the Org.OData.Repeatability.V1 vocabulary and carries
  `<Annotation Term="Org.OData.Repeatability.V1.Supported" Bool="true"/>` on the entity
  container; a write carrying `Repeatability-Request-ID` (alone or as a part of a $batch, in or out
  of a change set) is executed once, and the same id again gets the first answer back without
  being applied. `GET /_repeatability` lists what the server saw; POST /_reset forgets it all.
* --alternate-key SET=PROP[,PROP]: $metadata declares PROP (with the others) an alternate key of
  SET (`Org.OData.Core.V1.AlternateKeys` on the entity set), as services with natural keys beside
  a generated one do. Only declared: entities are still addressed by their key, and found by the
  alternate key with $filter.
"""
from __future__ import annotations

import argparse
import datetime as dt
import decimal
import json
import socketserver
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from odatapy.data import ComplexValue, Entity, Property, ValueType
from odatapy.edm.primitives import EdmPrimitiveTypeKind, Facets, get_primitive_type
from odatapy.edm.xml_io import XmlEdmProvider
from odatapy.errors import ODataApplicationException
from odatapy.http.status import HttpStatusCode
from odatapy.server import OData
from odatapy.server.adapters.wsgi import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor
from odatapy.server.processor import ActionProcessor, CustomETagSupport
from odatapy.server.request import ODataResponse
from odatapy.server.serializer.json_serializer import EntitySerializerOptions
from odatapy.server.support import ETagHelper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_functions import flight_details  # noqa: E402
from media_streams import MediaLayer, StreamProperties, content_for, etag_for, seed_stream_properties  # noqa: E402

EDM = "{http://docs.oasis-open.org/odata/ns/edm}"
EDMX = "{http://docs.oasis-open.org/odata/ns/edmx}"
REPEATABILITY_VOCABULARY = \
    "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Repeatability.V1.xml"
CORE_VOCABULARY = "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml"


# --------------------------------------------------------------------------- the model

class Model:
    """What the server needs from the EDMX, read with ElementTree."""

    def __init__(self, edmx: bytes) -> None:
        root = ET.fromstring(edmx)
        self.types: dict[str, dict] = {}      # qualified name -> {props, keys, navs}
        self.sets: dict[str, dict] = {}       # set name -> {type, bindings}
        for schema in root.iter(EDM + "Schema"):
            ns = schema.get("Namespace")
            for et in schema.findall(EDM + "EntityType"):
                props = {p.get("Name"): p.attrib for p in et.findall(EDM + "Property")}
                keys = [r.get("Name") for r in et.findall(f"{EDM}Key/{EDM}PropertyRef")]
                navs = {}
                for n in et.findall(EDM + "NavigationProperty"):
                    target = n.get("Type")
                    many = target.startswith("Collection(")
                    navs[n.get("Name")] = {
                        "type": target[11:-1] if many else target,
                        "many": many,
                        "partner": n.get("Partner"),
                        "constraints": [(c.get("Property"), c.get("ReferencedProperty"))
                                        for c in n.findall(EDM + "ReferentialConstraint")],
                    }
                self.types[f"{ns}.{et.get('Name')}"] = {"props": props, "keys": keys,
                                                         "navs": navs}
            for container in schema.findall(EDM + "EntityContainer"):
                for es in container.findall(EDM + "EntitySet"):
                    self.sets[es.get("Name")] = {
                        "type": es.get("EntityType"),
                        "bindings": {b.get("Path"): b.get("Target")
                                     for b in es.findall(EDM + "NavigationPropertyBinding")},
                    }

    def type_of(self, set_name: str) -> dict:
        return self.types[self.sets[set_name]["type"]]

    def key_of(self, set_name: str, entity: Entity) -> str:
        """The relation-table key odatapy's InMemoryProcessor uses (its _key_of)."""
        return "|".join(repr(entity.get_value(k)) for k in self.type_of(set_name)["keys"])


def typed(type_name: str, attrs: dict, value: Any) -> Any:
    """A seed JSON value as the Python value odatapy holds for that EDM type."""
    if value is None or type_name == "Edm.String":
        return value
    if type_name == "Edm.Decimal":
        return decimal.Decimal(str(value))
    if type_name in ("Edm.Boolean", "Edm.Int16", "Edm.Int32", "Edm.Int64", "Edm.Byte",
                     "Edm.SByte", "Edm.Double", "Edm.Single") and not isinstance(value, str):
        return value
    kind = EdmPrimitiveTypeKind.get_by_name(type_name[4:])
    return get_primitive_type(kind).value_of_string(str(value), Facets())


# --------------------------------------------------------------------------- store

class LinkingStore(InMemoryDataStore):
    """An InMemoryDataStore that keeps navigation links in step with foreign keys.

    odatapy calls record_change(set, entity, kind) after every create, update and delete; that is
    where the to-one links declared by referential constraints (and their partners) are re-derived.
    """

    def __init__(self, model: Model, change_stamp: str | None = None) -> None:
        super().__init__()
        self.model = model
        self.change_stamp = change_stamp

    def _to_one(self, set_name: str):
        et = self.model.type_of(set_name)
        for nav_name, nav in et["navs"].items():
            target_set = self.model.sets[set_name]["bindings"].get(nav_name)
            if nav["constraints"] and not nav["many"] and target_set:
                yield nav_name, nav, target_set

    def link(self, set_name: str, entity: Entity, index: dict | None = None) -> None:
        key = self.model.key_of(set_name, entity)
        for nav_name, nav, target_set in self._to_one(set_name):
            fk = tuple(entity.get_value(p) for p, _ in nav["constraints"])
            principal = None
            if None not in fk:
                if index is not None:
                    principal = index[(target_set, nav_name)].get(fk)
                else:
                    refs = [r for _, r in nav["constraints"]]
                    principal = next((e for e in self.data.get(target_set, [])
                                      if tuple(e.get_value(r) for r in refs) == fk), None)
            previous = self.relations.get((set_name, key, nav_name)) or []
            partner = nav["partner"]
            for old in previous:
                if partner and old is not principal:
                    bucket_key = (target_set, self.model.key_of(target_set, old), partner)
                    bucket = self.relations.get(bucket_key)
                    if bucket is not None:
                        self.relations[bucket_key] = [e for e in bucket if e is not entity]
            self.relations[(set_name, key, nav_name)] = [principal] if principal else []
            if principal is not None and partner:
                bucket = self.relations.setdefault(
                    (target_set, self.model.key_of(target_set, principal), partner), [])
                if not any(e is entity for e in bucket):
                    bucket.append(entity)

    def add_relation(self, entity_set: str, key: str, nav: str, target: Entity) -> None:
        """A POST to a collection navigation (`Agency('1')/AgencyBookings`, `$1/AgencyBookings` in
        a changeset) or a `$ref` write: also set the new member's foreign key from its owner, as a
        service with referential constraints does (odatapy only records the link)."""
        with self._lock:
            super().add_relation(entity_set, key, nav, target)
            if entity_set not in self.model.sets:
                return
            nav_def = self.model.type_of(entity_set)["navs"].get(nav)
            target_set = self.model.sets[entity_set]["bindings"].get(nav)
            if not nav_def or not nav_def["many"] or not nav_def["partner"] or not target_set:
                return
            partner = self.model.types[nav_def["type"]]["navs"].get(nav_def["partner"], {})
            constraints = partner.get("constraints") or []
            owner = next((e for e in self.data.get(entity_set, [])
                          if self.model.key_of(entity_set, e) == key), None)
            if owner is None or not constraints:
                return
            props = self.model.types[nav_def["type"]]["props"]
            for prop, ref in constraints:
                target.set_property(prop, owner.get_value(ref), ValueType.PRIMITIVE,
                                    props[prop].get("Type"))
            self.link(target_set, target)

    def unlink(self, set_name: str, entity: Entity) -> None:
        key = self.model.key_of(set_name, entity)
        for nav_name, nav, target_set in self._to_one(set_name):
            partner = nav["partner"]
            for old in self.relations.get((set_name, key, nav_name)) or []:
                if partner:
                    bucket_key = (target_set, self.model.key_of(target_set, old), partner)
                    bucket = self.relations.get(bucket_key)
                    if bucket is not None:
                        self.relations[bucket_key] = [e for e in bucket if e is not entity]

    def complete(self, set_name: str, entity: Entity) -> None:
        """Give every declared property a value (null when absent), as a real service does.

        odatapy stores a POSTed entity with only the properties the payload had, and then
        serves it without the others (not even as null).
        """
        props = self.model.type_of(set_name)["props"]
        present = {p.name for p in entity.properties}
        for name, attrs in props.items():
            if name not in present:
                entity.properties.append(Property(name=name, value=None,
                                                  value_type=ValueType.PRIMITIVE,
                                                  type=attrs.get("Type")))

    def stamp(self, set_name: str, entity: Entity) -> None:
        """Set the --change-stamp property (a DateTimeOffset) to now, UTC, milliseconds."""
        name = self.change_stamp
        if name and self.model.type_of(set_name)["props"].get(name, {}).get("Type") == \
                "Edm.DateTimeOffset":
            now = dt.datetime.now(dt.timezone.utc)
            entity.set_property(name, now.replace(microsecond=now.microsecond // 1000 * 1000),
                                ValueType.PRIMITIVE, "Edm.DateTimeOffset")

    def record_change(self, entity_set: str, entity: Entity, kind: str) -> None:
        with self._lock:
            if getattr(entity, "media_content", None) is not None:  # a strong media ETag
                entity.media_etag = etag_for(entity.media_content)
            if entity_set in self.model.sets:
                if kind == "deleted":
                    self.unlink(entity_set, entity)
                else:
                    self.complete(entity_set, entity)
                    self.stamp(entity_set, entity)
                    self.link(entity_set, entity)
            super().record_change(entity_set, entity, kind)

    def load(self, seed: dict, lenient: bool = False) -> None:
        """Fill the store from seed JSON and link everything (no change-log entries). `lenient`
        (a changed model, `--changed-model`): sets and properties the model no longer has are
        left out of the seed instead of refused."""
        with self._lock:
            for set_name, rows in seed.items():
                if set_name not in self.model.sets and lenient:
                    continue
                if set_name not in self.model.sets:
                    raise SystemExit(f"seed names an unknown entity set {set_name!r}")
                fqn = self.model.sets[set_name]["type"]
                props = self.model.types[fqn]["props"]
                entities = []
                for row in rows:
                    # Every set has ETags; set the first version now so that reads which do not
                    # ask odatapy for the ETag ($select lists) still show it.
                    entity = Entity(type=fqn, etag='W/"1"')
                    row = dict(row)
                    media_size = row.pop("@mediaSize", None)
                    media_type = row.pop("@mediaType", "application/octet-stream")
                    stream_sizes = row.pop("@streams", None)
                    for name, value in row.items():
                        if name not in props and lenient:
                            continue
                        if name not in props:
                            raise SystemExit(f"{set_name}: unknown property {name!r}")
                        ptype = props[name].get("Type")
                        entity.properties.append(Property(
                            name=name, value=typed(ptype, props[name], value),
                            value_type=ValueType.PRIMITIVE, type=ptype))
                    self.complete(set_name, entity)
                    if media_size is not None:  # media_streams.py: seeded stream content
                        keys = tuple(entity.get_value(k) for k in self.model.types[fqn]["keys"])
                        entity.media_content = content_for(set_name, keys, int(media_size))
                        entity.media_content_type = media_type
                        entity.media_etag = etag_for(entity.media_content)
                    if stream_sizes:  # media_streams.py: seeded Edm.Stream properties
                        keys = tuple(entity.get_value(k) for k in self.model.types[fqn]["keys"])
                        entity.stream_props = seed_stream_properties(set_name, keys, stream_sizes)
                    entities.append(entity)
                self.data[set_name] = entities
            # Index principals by referenced properties, then link every dependent once.
            index: dict = {}
            for set_name in self.model.sets:
                for nav_name, nav, target_set in self._to_one(set_name):
                    refs = [r for _, r in nav["constraints"]]
                    index[(target_set, nav_name)] = {
                        tuple(e.get_value(r) for r in refs): e
                        for e in self.data.get(target_set, [])}
                    partner = nav["partner"]
                    if partner:
                        for e in self.data.get(target_set, []):
                            self.relations.setdefault(
                                (target_set, self.model.key_of(target_set, e), partner), [])
            for set_name in self.model.sets:
                self.data.setdefault(set_name, [])
                if any(True for _ in self._to_one(set_name)):
                    for entity in self.data[set_name]:
                        self.link(set_name, entity, index)


# --------------------------------------------------------------------------- processor

class AllSetsHaveETags(CustomETagSupport):
    def has_etag(self, entity_set_or_singleton: Any) -> bool:
        return True


class Processor(InMemoryProcessor, ActionProcessor):
    """InMemoryProcessor plus server-generated keys for string keys and the sample's actions."""

    model: Model
    repeatability: "Repeatability | None" = None

    # A change set's repeatable requests are remembered when it commits, forgotten if it rolls back.
    def begin(self):
        token = super().begin()
        if self.repeatability:
            self.repeatability.begin()
        return token

    def commit(self, token) -> None:
        super().commit(token)
        if self.repeatability:
            self.repeatability.end(commit=True)

    def rollback(self, token) -> None:
        super().rollback(token)
        if self.repeatability:
            self.repeatability.end(commit=False)

    def _next_key(self, entity_set):
        et = self.model.type_of(entity_set.name)
        name = et["keys"][-1]
        attrs = et["props"][name]
        values = [e.get_value(name) for e in self.store.entities(entity_set.name)]
        if attrs.get("Type") == "Edm.String":
            numbers = [int(v) for v in values if isinstance(v, str) and v.isdigit()]
            width = int(attrs.get("MaxLength") or 0)
            return name, str(max(numbers, default=0) + 1).zfill(width)
        numbers = [v for v in values if isinstance(v, int)]
        return name, max(numbers, default=0) + 1

    def _assign_keys(self, entity_set, entity: Entity) -> None:
        keys = self.model.type_of(entity_set.name)["keys"]
        missing = [k for k in keys if entity.get_value(k) is None]
        if (missing == keys[-1:] and len(keys) > 1
                and self.store.is_key_auto_generating(entity_set.name)):
            name, value = self._next_key(entity_set)
            entity.set_property(name, value, ValueType.PRIMITIVE,
                                self.model.type_of(entity_set.name)["props"][name].get("Type"))
            return
        super()._assign_keys(entity_set, entity)

    # Media entities (media_streams.py): a changed stream is a change of its entity, so a delta
    # download sees it (LinkingStore.record_change gives it its media ETag).
    def update_media_entity(self, request, response, uri_info, request_ct) -> None:
        super().update_media_entity(request, response, uri_info, request_ct)
        target = self._resolve(request, uri_info)
        entity = self._require_entity(target)
        self.store.record_change(target.entity_set.name, entity, "changed")
        response.set_header("ETag", entity.media_etag)

    def process_action(self, request, response, uri_info, request_ct, response_ct) -> None:
        part = uri_info.last_resource
        if part.name != "UpdateAgencyPhoneNo":
            raise ODataApplicationException(f"Action {part.name} is not implemented.",
                                            HttpStatusCode.NOT_IMPLEMENTED)
        with self.store.lock:
            edm = self.service_metadata.edm
            action = part.action
            params = self.odata.create_deserializer(request_ct).action_parameters(
                edm, action, request.body)
            agencynum = params["agencynum"].value
            agency = next((e for e in self.store.entities("TravelagencyCollection")
                           if e.get_value("agencynum") == agencynum), None)
            if agency is None:
                raise ODataApplicationException(f"No agency {agencynum!r}.",
                                                HttpStatusCode.NOT_FOUND, code="404")
            phone = params.get("telephone")
            agency.set_property("telephone", phone.value if phone else None,
                                ValueType.PRIMITIVE, "Edm.String")
            entity_set = edm.get_entity_set("TravelagencyCollection")
            self._bump_etag(entity_set, agency)
            self.store.record_change("TravelagencyCollection", agency, "changed")
            self._ensure_id(request, entity_set, agency)
            serializer = self._serializer(response_ct, request)
            body = serializer.entity(edm, entity_set.entity_type, agency, EntitySerializerOptions(
                context_url=self._context(request, "TravelagencyCollection/$entity"),
                service_version=self._version(request)))
            etag = self._etag_of(entity_set, agency)
            if etag:
                response.set_header("ETag", etag)
            self._write(request, response, body, response_ct)


def register_sample_functions(processor: Processor, model: Model) -> None:
    """The flight sample's function imports (only when the EDMX has those sets)."""
    if not {"TravelagencyCollection", "FlightCollection"} <= set(model.sets):
        return

    def get_agency_details(target, part):
        agencynum = part.typed_parameters.get("agencynum")
        return next((e for e in processor.store.entities("TravelagencyCollection")
                     if e.get_value("agencynum") == agencynum), None)

    def get_flight_details(target, part):
        p = part.typed_parameters
        flight = next((e for e in processor.store.entities("FlightCollection")
                       if e.get_value("carrid") == p.get("carrid")
                       and e.get_value("connid") == p.get("connid")
                       and e.get_value("fldate") == p.get("fldate")), None)
        if flight is None:
            raise ODataApplicationException("Flight not found.", HttpStatusCode.NOT_FOUND,
                                            code="404")
        details = flight_details(flight.get_value("carrid"), flight.get_value("connid"))
        details["seatsfree"] = ((flight.get_value("seatsmax") or 0)
                                - (flight.get_value("seatsocc") or 0))
        types = {"flighttime": "Edm.Int32", "seatsfree": "Edm.Int32", "distance": "Edm.Decimal"}
        return ComplexValue(type_name="RMTSAMPLEFLIGHT.FlightDetails", properties=[
            Property(name=k, value=v, value_type=ValueType.PRIMITIVE,
                     type=types.get(k, "Edm.String")) for k, v in details.items()])

    processor.register_function("GetAgencyDetails", get_agency_details)
    processor.register_function("GetFlightDetails", get_flight_details)


# --------------------------------------------------------------------------- repeatable requests

def declare_repeatability(edmx: bytes) -> bytes:
    """`edmx` with a reference to the Org.OData.Repeatability.V1 vocabulary and
    `<Annotation Term="Org.OData.Repeatability.V1.Supported" Bool="true"/>` on every entity
    container. (odatapy renders a Tag annotation without a value as `String=""`, which is not a
    Core.Tag, so the value is spelled out.)"""
    ET.register_namespace("edmx", EDMX[1:-1])
    ET.register_namespace("", EDM[1:-1])
    root = ET.fromstring(edmx)
    reference = ET.Element(EDMX + "Reference", Uri=REPEATABILITY_VOCABULARY)
    ET.SubElement(reference, EDMX + "Include", Namespace="Org.OData.Repeatability.V1")
    root.insert(0, reference)  # references come before edmx:DataServices
    for container in root.iter(EDM + "EntityContainer"):
        ET.SubElement(container, EDM + "Annotation", Term="Org.OData.Repeatability.V1.Supported",
                      Bool="true")
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def declare_alternate_keys(edmx: bytes, keys: list[str]) -> bytes:
    """`edmx` with `Core.AlternateKeys` on each entity set named in `keys` (`SET=PROP[,PROP]`): a
    Collection of AlternateKey records, each a Collection of PropertyRef records (Alias, Name)."""
    ET.register_namespace("edmx", EDMX[1:-1])
    ET.register_namespace("", EDM[1:-1])
    root = ET.fromstring(edmx)
    reference = ET.Element(EDMX + "Reference", Uri=CORE_VOCABULARY)
    ET.SubElement(reference, EDMX + "Include", Namespace="Org.OData.Core.V1")
    root.insert(0, reference)
    wanted: dict[str, list[list[str]]] = {}
    for key in keys:
        name, _, properties = key.partition("=")
        wanted.setdefault(name, []).append(properties.split(","))
    for entity_set in root.iter(EDM + "EntitySet"):
        for properties in wanted.get(entity_set.get("Name"), []):
            annotation = ET.SubElement(entity_set, EDM + "Annotation", Term="Org.OData.Core.V1.AlternateKeys")
            key_record = ET.SubElement(ET.SubElement(annotation, EDM + "Collection"), EDM + "Record")
            parts = ET.SubElement(ET.SubElement(key_record, EDM + "PropertyValue", Property="Key"), EDM + "Collection")
            for name in properties:
                part = ET.SubElement(parts, EDM + "Record")
                ET.SubElement(part, EDM + "PropertyValue", Property="Alias", String=name)
                ET.SubElement(part, EDM + "PropertyValue", Property="Name", PropertyPath=name)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


class Repeatability:
    """OASIS Repeatable Requests 1.0 for the whole service (`--repeatable`).

    Hooked on odatapy's `handler.process`, which runs a single request, the `$batch` request itself
    and every part of a `$batch` (multipart or JSON; odatapy's BatchHandler runs the parts through
    the same method). A request other than GET/HEAD that carries `Repeatability-Request-ID` is
    known by (`Repeatability-Client-ID` or "", `Repeatability-Request-ID`):

    * the first time it is executed and its complete answer (status, headers, body) remembered; it
      goes out with `Repeatability-Result: accepted`;
    * when the id comes again it is not executed: the remembered answer goes out, with
      `Repeatability-Result: <replay_result>` (`replayed` by default; the specification itself only
      knows `accepted` and `rejected`, and `--replay-result accepted` makes the replay say that).

    In a change set (multipart or a JSON atomicity group) the answers are remembered when the change
    set commits; a change set that is rolled back leaves its ids unknown (nothing of it was applied),
    so sending it again executes it. A part that is replayed inside a change set keeps its
    Location, so `$n` references to it still resolve. A second request with an id whose first is
    still executing waits for it (up to WAIT_SECONDS, then 409).

    Not implemented: a tracking window (`Repeatability-First-Sent` is recorded, never checked;
    answers are kept until `POST /_reset`), comparing a repeated request with the first (method,
    URL, body), `Repeatability-*` headers on the MIME part headers of a multipart part (only on the
    part's embedded HTTP request, where the engine puts them), the DeleteByClientID and
    DeleteByRequestID actions.

    `GET /_repeatability` → `{"requests": [{"client_id", "request_id", "first_sent", "method",
    "path", "in_changeset", "result": "accepted"|"replayed"|"rolled back"|"busy", "status"}, ...]}`,
    one entry per request that carried an id, in arrival order.
    """

    SKIPPED_METHODS = {"GET", "HEAD"}
    WAIT_SECONDS = 10.0

    def __init__(self, replay_result: str = "replayed") -> None:
        self.replay_result = replay_result
        self.lock = threading.Lock()
        self.answers: dict[tuple[str, str], tuple[int, list, bytes]] = {}
        self.running: dict[tuple[str, str], threading.Event] = {}
        self.seen: list[dict] = []
        self.local = threading.local()  # .changesets: [[(key, answer, event, log entry), ...], ...]

    def _changesets(self) -> list:
        if not hasattr(self.local, "changesets"):
            self.local.changesets = []
        return self.local.changesets

    def _pending(self, key):
        for changeset in self._changesets():
            for pending_key, answer, _, _ in changeset:
                if pending_key == key:
                    return answer
        return None

    def clear(self) -> None:
        with self.lock:
            self.answers.clear()
            self.seen.clear()

    def log(self) -> list[dict]:
        with self.lock:
            return [dict(entry) for entry in self.seen]

    # -- change sets (called by Processor.begin/commit/rollback, on the change set's thread)

    def begin(self) -> None:
        self._changesets().append([])

    def end(self, commit: bool) -> None:
        changesets = self._changesets()
        if not changesets:
            return
        finished = changesets.pop()
        if changesets and commit:  # (never nested in odatapy; kept with the enclosing one)
            changesets[-1].extend(finished)
            return
        with self.lock:
            for key, answer, event, entry in finished:
                if commit:
                    self.answers[key] = answer
                else:
                    entry["result"] = "rolled back"
                self.running.pop(key, None)
                event.set()

    # -- requests

    def wrap(self, process):
        def repeatable_process(request):
            request_id = request.get_header("Repeatability-Request-ID")
            method = str(getattr(request.method, "value", request.method)).upper()
            if not request_id or method in self.SKIPPED_METHODS:
                return process(request)
            key = (request.get_header("Repeatability-Client-ID") or "", request_id)
            entry = {"client_id": key[0], "request_id": request_id,
                     "first_sent": request.get_header("Repeatability-First-Sent"),
                     "method": method, "path": request.raw_odata_path
                     + (f"?{request.raw_query_path}" if request.raw_query_path else ""),
                     "in_changeset": bool(self._changesets()), "result": None, "status": None}
            with self.lock:
                self.seen.append(entry)
            deadline = time.monotonic() + self.WAIT_SECONDS
            while True:
                with self.lock:
                    answer = self.answers.get(key) or self._pending(key)
                    event = None if answer else self.running.get(key)
                    if answer is None and event is None:
                        event = self.running[key] = threading.Event()
                        break  # ours to execute
                if answer is not None:
                    return self._replay(answer, entry)
                if not event.wait(max(0.0, deadline - time.monotonic())):
                    entry["result"], entry["status"] = "busy", 409
                    return self._busy(request_id)
            try:
                response = process(request)
                body = response.body_bytes()
            except BaseException:
                with self.lock:
                    self.running.pop(key, None)
                event.set()
                raise
            answer = (response.status_code, list(response.headers.items()), body)
            response.set_header("Repeatability-Result", "accepted")
            entry["result"], entry["status"] = "accepted", response.status_code
            changesets = self._changesets()
            if changesets:
                changesets[-1].append((key, answer, event, entry))
            else:
                with self.lock:
                    self.answers[key] = answer
                    self.running.pop(key, None)
                event.set()
            return response

        return repeatable_process

    def _replay(self, answer, entry) -> ODataResponse:
        status, headers, body = answer
        response = ODataResponse()
        response.set_status(status)
        for name, value in headers:
            response.set_header(name, value)
        response.set_header("Repeatability-Result", self.replay_result)
        response.content = body
        entry["result"], entry["status"] = "replayed", status
        return response

    @staticmethod
    def _busy(request_id: str) -> ODataResponse:
        response = ODataResponse()
        response.set_status(409)
        response.set_content(json.dumps({"error": {
            "code": "409", "message": f"The request {request_id!r} is still being processed."}}),
            "application/json")
        return response


# --------------------------------------------------------------------------- HTTP

class Service:
    def __init__(self, edmx: bytes, seed: dict, page_size: int | None, autokey: list[str],
                 change_stamp: str | None = None, repeatable: bool = False,
                 replay_result: str = "replayed", lenient_seed: bool = False,
                 alternate_keys: list[str] | None = None):
        self.model = Model(edmx)
        if alternate_keys:
            edmx = declare_alternate_keys(edmx, alternate_keys)
        self.repeatability = Repeatability(replay_result) if repeatable else None
        if repeatable:
            edmx = declare_repeatability(edmx)
        self.change_stamp = change_stamp
        self.seed = seed
        self.lenient_seed = lenient_seed
        self.autokey = autokey
        odata = OData.new_instance()
        metadata = odata.create_service_metadata(XmlEdmProvider(edmx))
        self.handler = odata.create_handler(metadata)
        self.processor = Processor(self.new_store(), page_size=page_size)
        self.processor.model = self.model
        self.processor.repeatability = self.repeatability
        if self.repeatability:
            self.handler.process = self.repeatability.wrap(self.handler.process)
        self.handler.register(self.processor)
        self.handler.register(AllSetsHaveETags())
        register_sample_functions(self.processor, self.model)
        streams = StreamProperties(self.model, lambda: self.processor.store, ETagHelper.next_version)
        self.app = MediaLayer(ODataWSGIApp(self.handler), streams)
        self.conflicts = ArmedConflicts()

    def new_store(self) -> LinkingStore:
        for name in self.autokey:
            if name not in self.model.sets:
                raise SystemExit(f"--autokey: unknown entity set {name!r}")
        store = LinkingStore(self.model, self.change_stamp)
        store.load(self.seed, lenient=self.lenient_seed)
        store.declare_key_auto_generating(*self.autokey)
        return store

    def reset(self) -> None:
        old = self.processor.store
        with old.lock:
            self.processor.store = self.new_store()
            if self.repeatability:
                self.repeatability.clear()
        self.conflicts.clear()
        self.app.reset()  # the media log and hostile modes (POST /_reset does not reach the layer)

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == "/_reset":
            if environ.get("REQUEST_METHOD") != "POST":
                start_response("405 Method Not Allowed", [("Allow", "POST"),
                                                          ("Content-Length", "0")])
                return [b""]
            self.reset()
            start_response("204 No Content", [])
            return [b""]
        if environ.get("PATH_INFO") == "/_conflict":
            return self.conflicts.arm(environ, start_response)
        refusal = self.conflicts.take(environ)
        if refusal:
            status, body = refusal
            start_response(status, [("Content-Type", "application/json"), ("OData-Version", "4.0"),
                                     ("Content-Length", str(len(body)))])
            return [body]
        if environ.get("PATH_INFO") == "/_repeatability" and self.repeatability:
            body = json.dumps({"requests": self.repeatability.log()}).encode()
            start_response("200 OK", [("Content-Type", "application/json"),
                                      ("Content-Length", str(len(body)))])
            return [body]
        return self.app(environ, start_response)


class ArmedConflicts:
    """`POST /_conflict` (test only): arms one refusal of the next change of an entity, answered as
    an OData V4 service answers a change its rules refuse (`{"error": {"code", "message"}}`)."""

    CHANGES = ("PATCH", "PUT", "MERGE", "DELETE")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.armed: dict[str, int] = {}

    def clear(self) -> None:
        with self.lock:
            self.armed.clear()

    def arm(self, environ, start_response):
        if environ.get("REQUEST_METHOD") != "POST":
            start_response("405 Method Not Allowed", [("Allow", "POST"), ("Content-Length", "0")])
            return [b""]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        request = json.loads(environ["wsgi.input"].read(length) or b"{}")
        with self.lock:
            self.armed[unquote(request["path"]).lstrip("/")] = int(request.get("status", 409))
        start_response("204 No Content", [])
        return [b""]

    def take(self, environ):
        """(status line, body) when this request is the armed change of its entity, else None."""
        method = environ.get("HTTP_X_HTTP_METHOD") or environ.get("REQUEST_METHOD")
        if method not in self.CHANGES:
            return None
        path = unquote(environ.get("PATH_INFO", "")).lstrip("/")
        with self.lock:
            status = self.armed.pop(path, None)
        if status is None:
            return None
        reason = {409: "Conflict", 412: "Precondition Failed"}.get(status, "Refused")
        body = json.dumps({"error": {"code": str(status), "message":
                                     f"{path} is in a state that does not allow this change (armed by the test)"}}).encode()
        return f"{status} {reason}", body


class PagedDeltas:
    """`--page-deltas N`: a delta answer (`$deltatoken`) in pages of N entries, as the specification
    allows and odatapy does not do: `@odata.nextLink` is the delta link with `$skiptoken=<entries
    served so far>`, and the delta link comes on the last page. Each page is cut from the whole
    delta answer, so the pages hold together while nothing changes on the service."""

    def __init__(self, app, size: int):
        self.app, self.size = app, size

    def __call__(self, environ, start_response):
        query = environ.get("QUERY_STRING", "")
        pairs = [pair for pair in query.split("&") if pair]
        if environ.get("REQUEST_METHOD") != "GET" or not any(p.startswith("%24deltatoken=") or p.startswith("$deltatoken=")
                                                            for p in pairs):
            return self.app(environ, start_response)
        skip = next((p.split("=", 1)[1] for p in pairs if p.startswith(("$skiptoken=", "%24skiptoken="))), "0")
        if not skip.isdigit():
            start_response("400 Bad Request", [("Content-Type", "application/json")])
            return [json.dumps({"error": {"code": "400", "message": f"invalid $skiptoken {skip!r}"}}).encode()]
        rest = [p for p in pairs if not p.startswith(("$skiptoken=", "%24skiptoken="))]
        captured = {}

        def capture(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, headers
            return lambda data: None

        body = b"".join(self.app(dict(environ, QUERY_STRING="&".join(rest)), capture))
        if not captured["status"].startswith("200"):
            start_response(captured["status"], captured["headers"])
            return [body]
        document = json.loads(body)
        entries, start = document.get("value", []), int(skip)
        document["value"] = entries[start:start + self.size]
        if start + self.size < len(entries):
            host = environ.get("HTTP_HOST", "127.0.0.1")
            document["@odata.nextLink"] = (f"http://{host}{environ.get('PATH_INFO', '')}?"
                                           + "&".join(rest + [f"$skiptoken={start + self.size}"]))
            document.pop("@odata.deltaLink", None)
        out = json.dumps(document).encode()
        headers = [(k, v) for k, v in captured["headers"] if k.lower() != "content-length"]
        start_response(captured["status"], headers + [("Content-Length", str(len(out)))])
        return [out]


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = 64


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generic OData V4 test backend (odatapy)")
    parser.add_argument("edmx")
    parser.add_argument("seed")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--autokey", action="append", default=[], metavar="SET")
    parser.add_argument("--change-stamp", metavar="PROPERTY",
                        help="a DateTimeOffset property the server sets to now on every write")
    parser.add_argument("--repeatable", action="store_true",
                        help="OASIS Repeatable Requests 1.0: declared in $metadata, ids remembered")
    parser.add_argument("--replay-result", default="replayed", metavar="VALUE",
                        help="Repeatability-Result of a replayed answer (default: replayed)")
    parser.add_argument("--alternate-key", action="append", default=[], metavar="SET=PROP[,PROP]",
                        help="declare an alternate key of SET in $metadata (Core.AlternateKeys)")
    parser.add_argument("--page-deltas", type=int, default=0, metavar="N",
                        help="answer deltas in pages of N entries (odatapy answers them in one)")
    parser.add_argument("--changed-model", action="store_true",
                        help="the EDMX is a changed version of the seed's model: seed sets and properties it "
                             "lacks are left out")
    args = parser.parse_args(argv)
    with open(args.edmx, "rb") as f:
        edmx = f.read()
    with open(args.seed, encoding="utf-8") as f:
        seed = json.load(f)
    service = Service(edmx, seed, args.page_size or None, args.autokey, args.change_stamp,
                      args.repeatable, args.replay_result, lenient_seed=args.changed_model,
                      alternate_keys=args.alternate_key)
    app = PagedDeltas(service, args.page_deltas) if args.page_deltas else service
    httpd = make_server("127.0.0.1", args.port, app, server_class=ThreadingWSGIServer,
                        handler_class=QuietHandler)
    print(f"READY {httpd.server_address[1]}", flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
