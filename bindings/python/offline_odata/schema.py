"""Typed answers: a store's ``$metadata`` summary turned once into converter tables, and each
answer decoded with them into :class:`~offline_odata.entity.Entity` values.

A table per entity set lists only the properties whose JSON value is not their Python value
(decimals, dates, GUIDs, ...), with their decoder, and the navigation properties with the table of
their target; it is built the first time an entity set is read, so a read does no lookup per value.
Which table an answer uses comes from its URL (entity set, then navigation segments), cached per path.
"""
import json
import threading
from decimal import Decimal
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .entity import Entity
from .results import count_of, unwrap_json
from .values import Decoder, decoder_for

#: What a typed read gives: entities, one entity, a count, a property's value, or None.
TypedValue = Union[List[Entity], Entity, int, None, Any]

_CACHE_LIMIT = 512


class _Table:
    """How to type the entities of one entity set."""

    __slots__ = ("name", "converters", "types", "navigations")

    def __init__(self, name: str) -> None:
        self.name = name
        self.converters: Tuple[Tuple[str, Decoder], ...] = ()
        self.types: Dict[str, str] = {}
        self.navigations: Tuple[Tuple[str, "_Table"], ...] = ()


def _collection_decoder(item: Decoder) -> Decoder:
    return lambda values: [None if value is None else item(value) for value in values]


def _property_decoder(type_name: str) -> Optional[Decoder]:
    if type_name.startswith("Collection(") and type_name.endswith(")"):
        item = decoder_for(type_name[len("Collection("):-1])
        return None if item is None else _collection_decoder(item)
    return decoder_for(type_name)


def _split_path(path: str) -> List[str]:
    """The segments of a resource path, ``/`` inside quoted keys not splitting."""
    segments, start, quoted = [], 0, False
    for index, character in enumerate(path):
        if character == "'":
            quoted = not quoted
        elif character == "/" and not quoted:
            segments.append(path[start:index])
            start = index + 1
    segments.append(path[start:])
    return [segment for segment in segments if segment]


class Schema:
    """The converter tables of one store, built from its ``metadata()`` summary and dialect."""

    def __init__(self, metadata: Dict[str, Any], v2: bool, service_root: str = "") -> None:
        self.v2 = v2
        self._service_root = service_root
        self._sets: Dict[str, Dict[str, Any]] = {entity_set["name"]: entity_set
                                                 for entity_set in metadata.get("entitySets", [])}
        by_type: Dict[str, str] = {}
        for entity_set in self._sets.values():
            by_type.setdefault(str(entity_set.get("entityType")), entity_set["name"])
        # Singletons and function imports answer entities of a type: the first set of that type types them.
        self._aliases: Dict[str, str] = {}
        for singleton in metadata.get("singletons", []):
            entity_type = str(singleton.get("entityType"))
            if entity_type in by_type:
                self._aliases[singleton["name"]] = by_type[entity_type]
        for function in metadata.get("functionImports", []) + metadata.get("actionImports", []):
            returned = str(function.get("returnType") or "")
            if returned.startswith("Collection(") and returned.endswith(")"):
                returned = returned[len("Collection("):-1]
            if returned in by_type:
                self._aliases[function["name"]] = by_type[returned]
        # V4 numbers are parsed exactly (Decimal) when the model has decimals; doubles are made floats again.
        self._exact = not v2 and any(prop.get("type") == "Edm.Decimal" for entity_set in self._sets.values()
                                     for prop in entity_set.get("properties", []))
        # One decoder made once: json.loads with an argument would make one per read.
        self._loads: Callable[[str], Any] = json.JSONDecoder(parse_float=Decimal).decode if self._exact else json.loads
        self._annotation_key = "__metadata" if v2 else "@odata.etag"
        self._tables: Dict[str, _Table] = {}
        self._paths: Dict[str, Tuple[Optional[_Table], bool]] = {}
        self._lock = threading.Lock()

    # ---- tables ------------------------------------------------------------------------------

    def table(self, entity_set: str) -> Optional[_Table]:
        """The table of ``entity_set`` (or of the set a singleton or function import answers with)."""
        name = self._aliases.get(entity_set, entity_set)
        table = self._tables.get(name)
        if table is not None or name not in self._sets:
            return table
        with self._lock:
            return self._build(name)

    def _build(self, name: str) -> _Table:
        """Under the lock: the table of ``name`` and of the sets its navigation reaches."""
        table = self._tables.get(name)
        if table is not None:
            return table
        table = _Table(name)
        self._tables[name] = table  # before its navigations: cycles end here
        entity_set = self._sets[name]
        converters = []
        for prop in entity_set.get("properties", []):
            type_name = str(prop.get("type", ""))
            decode = _property_decoder(type_name)
            if decode is not None:
                converters.append((prop["name"], decode))
                table.types[prop["name"]] = type_name
        table.converters = tuple(converters)
        table.navigations = tuple((nav["name"], self._build(nav["target"]))
                                  for nav in entity_set.get("navigationProperties", [])
                                  if nav.get("target") in self._sets)
        return table

    def resolve(self, url: str) -> Tuple[Optional[_Table], bool]:
        """The table of what ``url`` answers, and whether it answers entities (not a property's value)."""
        path = url.split("?", 1)[0]
        known = self._paths.get(path)
        if known is not None:
            return known
        relative = path
        if "://" in relative:
            relative = relative[len(self._service_root):] if self._service_root and relative.startswith(
                self._service_root) else ""
        resolved: Tuple[Optional[_Table], bool] = (None, True)
        segments = _split_path(relative)
        if segments:
            table = self.table(segments[0].split("(", 1)[0])
            entities = True
            for segment in segments[1:]:
                name = segment.split("(", 1)[0]
                if table is None or name in ("$count", "$value", "$ref"):
                    break
                target = next((nav for nav_name, nav in table.navigations if nav_name == name), None)
                if target is None:
                    table, entities = None, False  # a property, a cast, an operation: left as sent
                    break
                table = target
            resolved = (table, entities)
        if len(self._paths) >= _CACHE_LIMIT:
            self._paths.clear()
        self._paths[path] = resolved
        return resolved

    # ---- answers -----------------------------------------------------------------------------

    def decode(self, body: bytes, content_type: str, url: str) -> TypedValue:
        """An answer to ``url`` as typed values: entities as a list of :class:`Entity`, one entity as
        an :class:`Entity`, a ``$count`` as an int, None for no body."""
        if not body:
            return None
        if not content_type.startswith("application/json"):
            return count_of(body)
        table, entities = self.resolve(url)
        payload, collection = unwrap_json(self._loads(body.decode("utf-8")))
        if collection:
            return self.entities(payload, table, body)
        if collection is False and entities:
            return self.entity(payload, table, body)
        return payload

    def entities(self, items: List[Any], table: Optional[_Table], body: bytes = b"@") -> List[Entity]:
        """``items`` (entities of the JSON of one answer, ``body``) as typed entities."""
        scan = self._scan(body)
        if table is not None and not scan and not table.navigations and not self.v2:
            return self._flat_entities(items, table)
        convert = self._entity
        return [convert(item, table, scan) if item.__class__ is dict else item for item in items]

    def _flat_entities(self, items: List[Any], table: _Table) -> List[Entity]:
        """The hottest path: V4 entities without navigation or annotations beyond the ETag, one
        loop without a call per entity."""
        converters = table.converters
        entities: List[Entity] = []
        append = entities.append
        raw: Any = None
        try:
            for raw in items:
                if raw.__class__ is not dict:
                    append(raw)
                    continue
                etag = raw.pop("@odata.etag", None)
                for name, decode in converters:
                    value = raw.get(name)
                    if value is not None:
                        raw[name] = decode(value)
                entity = Entity(raw)
                if etag is not None:
                    entity._annotations = {"@odata.etag": etag}
                append(entity)
        except (ValueError, TypeError, ArithmeticError) as error:
            raise _conversion_error(table, raw, error) from None
        return entities

    def entity(self, item: Dict[str, Any], table: Optional[_Table], body: bytes = b"@") -> Entity:
        """One entity of the JSON of an answer, ``body``, typed."""
        return self._entity(item, table, self._scan(body))

    def _scan(self, body: bytes) -> bool:
        """Whether keys must be searched for annotations other than ``@odata.etag``: only when
        the body has an ``@`` that no known annotation accounts for."""
        if self.v2:
            return b"@" in body
        count = body.count
        at = count(b"@")
        return at > 0 and at != (count(b'"@odata.etag"') + count(b'"@odata.context"') + count(b'"@odata.count"')
                                 + count(b'"@odata.nextLink"') + count(b'"@odata.deltaLink"'))

    def _entity(self, raw: Dict[str, Any], table: Optional[_Table], scan: bool) -> Entity:
        """The hot loop of typed reads: takes the annotations out, converts what its table lists."""
        key = self._annotation_key
        annotation = raw.pop(key, None)
        annotations = None if annotation is None else {key: annotation}
        if scan:
            found = {key: raw[key] for key in raw if "@" in key}
            for key in found:
                del raw[key]
            annotations = {**annotations, **found} if annotations else found
        if table is not None:
            try:
                for name, decode in table.converters:
                    value = raw.get(name)
                    if value is not None:
                        raw[name] = decode(value)
            except (ValueError, TypeError, ArithmeticError) as error:
                raise _conversion_error(table, raw, error) from None
            if table.navigations:
                annotations = self._navigations(raw, table, scan, annotations)
        elif self.v2:
            annotations = self._navigations(raw, None, scan, annotations)
        entity = Entity(raw)
        if annotations:
            entity._annotations = annotations
        return entity

    def _navigations(self, raw: Dict[str, Any], table: Optional[_Table], scan: bool,
                     annotations: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
        """Expanded navigation properties typed with their target's table; V2's ``__deferred``
        links of those not expanded moved to the annotations."""
        deferred = [key for key, value in raw.items() if value.__class__ is dict and "__deferred" in value]
        if deferred:
            annotations = dict(annotations or {})
            for key in deferred:
                annotations[key] = raw.pop(key)
        for name, target in table.navigations if table is not None else ():
            value = raw.get(name)
            if value is None:
                continue
            if value.__class__ is dict and self.v2 and isinstance(value.get("results"), list):
                value = value["results"]
            if isinstance(value, list):
                raw[name] = [self._entity(item, target, scan) for item in value]
            elif isinstance(value, dict):
                raw[name] = self._entity(value, target, scan)
        return annotations


def _conversion_error(table: _Table, raw: Dict[str, Any], error: Exception) -> ValueError:
    """The error of a value its type's decoder refused, naming the property (found again: errors are rare)."""
    for name, decode in table.converters:
        value = raw.get(name)
        try:
            if value is not None:
                decode(value)
        except (ValueError, TypeError, ArithmeticError):
            return ValueError(f"{table.name}.{name}: {value!r} is not a {table.types[name]} value ({error})")
    return ValueError(f"{table.name}: {error}")
