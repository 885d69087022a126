"""Typed answers: a store's ``$metadata`` summary turned once into converters, and each
answer decoded with them into :class:`~offline_odata.entity.Entity` values.

The converters of an entity set list only the properties whose JSON value is not their Python
value (decimals, dates, GUIDs, ...), with their decoder, and the navigation properties with the
converters of their target; they are built the first time an entity set is read, so a read does no
lookup per value. Which converters an answer uses comes from the answer itself (its
:class:`~offline_odata.results.AnswerShape`: the entity set, else the entity type, the library
found when it read the request), never from its URL.
"""
import json
import threading
from decimal import Decimal
from collections import deque
from functools import partial
from itertools import chain, repeat
from operator import setitem
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple, Union

from ._fast_json import fast_loads
from .entity import Entity
from .results import AnswerKind, AnswerShape, count_of, unwrap_json
from .values import ColumnDecoder, Decoder, column_decoder_for, decoder_for, typed_class_of

#: What a typed read gives: entities, one entity, a count, a property's value, or None.
TypedValue = Union[List[Entity], Entity, int, None, Any]

_NONE = type(None)
#: Runs an iterator to its end, keeping nothing (the write-back ``map`` of a converted column).
_consume: Callable[[Iterable[Any]], Any] = partial(deque, maxlen=0)
_DICT = {dict}
#: The V4 annotations that are not searched for among an entity's keys (the ETag is taken by name).
_CONTEXT, _ETAG = b'"@odata.context"', b'"@odata.etag"'
_OPENS_WITH_CONTEXT = b"{" + _CONTEXT
_AFTER_CONTEXT = len(_OPENS_WITH_CONTEXT)
_OTHER_KNOWN_ANNOTATIONS = (b'"@odata.count"', b'"@odata.nextLink"', b'"@odata.deltaLink"')


class _EntitySetConverters:
    """How to type the entities of one entity set: the converters of its properties and of its
    navigation properties' targets."""

    __slots__ = ("name", "properties", "columns", "types", "navigations", "navigation_names")

    def __init__(self, name: str) -> None:
        self.name = name
        # (property, decoder, the class its JSON value needs no decoding in: see typed_class_of)
        self.properties: Tuple[Tuple[str, Decoder, type], ...] = ()
        # The same with each property's column decoder (None: its values are converted one at a time).
        self.columns: Tuple[Tuple[str, Decoder, type, Optional[ColumnDecoder]], ...] = ()
        self.types: Dict[str, str] = {}
        self.navigations: Tuple[Tuple[str, "_EntitySetConverters"], ...] = ()
        self.navigation_names: FrozenSet[str] = frozenset()


def _collection_decoder(item: Decoder) -> Decoder:
    return lambda values: [None if value is None else item(value) for value in values]


def _property_decoder(type_name: str) -> Optional[Decoder]:
    if type_name.startswith("Collection(") and type_name.endswith(")"):
        item = decoder_for(type_name[len("Collection("):-1])
        return None if item is None else _collection_decoder(item)
    return decoder_for(type_name)


class Schema:
    """The converters of one store, built from its ``metadata()`` summary and dialect."""

    def __init__(self, metadata: Dict[str, Any], v2: bool) -> None:
        self.v2 = v2
        self._sets: Dict[str, Dict[str, Any]] = {entity_set["name"]: entity_set
                                                 for entity_set in metadata.get("entitySets", [])}
        # Singletons and operations answer entities of a type but of no set: the first set of that type types them.
        self._set_of_type: Dict[str, str] = {}
        for entity_set in self._sets.values():
            self._set_of_type.setdefault(str(entity_set.get("entityType")), entity_set["name"])
        # V4 numbers are parsed exactly (Decimal) when the model has decimals; doubles are made floats again.
        self._exact = not v2 and any(prop.get("type") == "Edm.Decimal" for entity_set in self._sets.values()
                                     for prop in entity_set.get("properties", []))
        # One decoder made once (json.loads with an argument would make one per read), its scanner called directly.
        self._loads: Callable[[str], Any] = fast_loads(
            json.JSONDecoder(parse_float=Decimal) if self._exact else json.JSONDecoder())
        self._annotation_key = "__metadata" if v2 else "@odata.etag"
        self._converters: Dict[str, _EntitySetConverters] = {}
        self._lock = threading.Lock()

    # ---- converters --------------------------------------------------------------------------

    def converters_of(self, entity_set: Optional[str], entity_type: Optional[str] = None) -> Optional[_EntitySetConverters]:
        """The converters of ``entity_set``; for a name that is no entity set (a singleton, an
        operation's answer), those of the first set of ``entity_type``; None when neither is known."""
        name = entity_set if entity_set in self._sets else self._set_of_type.get(entity_type or "")
        if name is None:
            return None
        converters = self._converters.get(name)
        if converters is not None:
            return converters
        with self._lock:
            return self._build(name)

    def _build(self, name: str) -> _EntitySetConverters:
        """Under the lock: the converters of ``name`` and of the sets its navigation reaches."""
        converters = self._converters.get(name)
        if converters is not None:
            return converters
        converters = _EntitySetConverters(name)
        self._converters[name] = converters  # before its navigations: cycles end here
        entity_set = self._sets[name]
        found = []
        for prop in entity_set.get("properties", []):
            type_name = str(prop.get("type", ""))
            decode = _property_decoder(type_name)
            if decode is not None:
                found.append((prop["name"], decode, typed_class_of(type_name), column_decoder_for(type_name)))
                converters.types[prop["name"]] = type_name
        converters.columns = tuple(found)
        converters.properties = tuple(column[:3] for column in found)
        converters.navigations = tuple((nav["name"], self._build(nav["target"]))
                                       for nav in entity_set.get("navigationProperties", [])
                                       if nav.get("target") in self._sets)
        converters.navigation_names = frozenset(name for name, _ in converters.navigations)
        return converters

    # ---- answers -----------------------------------------------------------------------------

    def decode(self, body: bytes, content_type: str, shape: AnswerShape) -> TypedValue:
        """An answer holding ``shape`` as typed values: entities as a list of :class:`Entity`, one
        entity as an :class:`Entity`, a ``$count`` as an int, None for no body; a property's value
        as sent, without its wrapper; a raw value (``/$value``) as its text;
        a media entity's stream (``Set(key)/$value``, type ``Edm.Stream``) as its bytes."""
        kind = shape.kind
        if kind is AnswerKind.VALUE and shape.property_type == "Edm.Stream":
            return body  # the stream's bytes, whatever they look like (issue 35)
        if not body:
            return None
        if kind is AnswerKind.VALUE:
            return body.decode("utf-8")  # a raw value (/$value) is its text, whatever it looks like
        if not content_type.startswith("application/json"):
            return count_of(body)
        entities = kind is not AnswerKind.PROPERTY
        converters = self.converters_of(shape.entity_set, shape.entity_type) if (
            kind is AnswerKind.COLLECTION or kind is AnswerKind.ENTITY) else None
        payload, collection = unwrap_json(self._loads(body.decode("utf-8")))
        if collection:
            return self.entities(payload, converters, body)
        if collection is False and entities:
            return self.entity(payload, converters, body)
        return payload

    def entities(self, items: List[Any], converters: Optional[_EntitySetConverters], body: bytes = b"@") -> List[Entity]:
        """``items`` (entities of the JSON of one answer, ``body``) as typed entities."""
        scan, etags = self._annotations(body)
        if converters is not None and not scan and not self.v2 and _flat(items, converters):
            return self._flat_entities(items, converters, etags)
        convert = self._entity
        return [convert(item, converters, scan) if item.__class__ is dict else item for item in items]

    def _flat_entities(self, items: List[Dict[str, Any]], converters: _EntitySetConverters, etags: bool) -> List[Entity]:
        """The hottest path: V4 entities (dicts) without expanded navigation or annotations beyond the
        ETag (``etags``: whether the answer has any), converted a property at a time. Which
        classes a property's values have is found by iterating in C; a property whose values
        all have their Python type already (V4 numbers) costs no Python loop, and the entities
        are made by one ``map``. A property with a column decoder and no null (the usual dates and
        decimals) is converted by it, in C, and written back by one ``map``."""
        for name, decode, typed, column in converters.columns:
            values = list(map(dict.get, items, repeat(name)))
            classes = set(map(type, values))
            if not classes - {typed, _NONE}:
                continue
            converted = None if column is None or _NONE in classes else column(values)
            if converted is None:
                _convert_property(items, converters, name, decode, typed)
            else:
                _consume(map(setitem, items, repeat(name), converted))
        if not etags:
            return list(map(Entity, items))
        tags = list(map(dict.pop, items, repeat("@odata.etag"), repeat(None)))
        entities = list(map(Entity, items))
        for entity, tag in zip(entities, tags):
            if tag is not None:
                entity._annotations = {"@odata.etag": tag}
        return entities

    def entity(self, item: Dict[str, Any], converters: Optional[_EntitySetConverters], body: bytes = b"@") -> Entity:
        """One entity of the JSON of an answer, ``body``, typed."""
        return self._entity(item, converters, self._annotations(body)[0])

    def _annotations(self, body: bytes) -> Tuple[bool, bool]:
        """Whether keys must be searched for annotations (only when the body has an ``@`` that no
        known annotation accounts for), and whether entities may have an ETag. Each count reads
        the whole body: most answers are done with after one."""
        if self.v2:
            at = b"@" in body
            return at, at
        # The usual answer has no "@" but its context's: ruled out by one search (memchr, a few
        # bytes an instruction) before any count (which reads byte by byte: 5 instructions a byte).
        if body.startswith(_OPENS_WITH_CONTEXT):
            if body.find(b"@", _AFTER_CONTEXT) < 0:
                return False, False
        elif b"@" not in body:
            return False, False
        count = body.count
        unknown = count(b"@")
        etags = count(_ETAG)
        unknown -= etags + count(_CONTEXT)
        for annotation in _OTHER_KNOWN_ANNOTATIONS:
            if not unknown:
                break
            unknown -= count(annotation)
        return unknown > 0, etags > 0

    def _entity(self, raw: Dict[str, Any], converters: Optional[_EntitySetConverters], scan: bool) -> Entity:
        """The hot loop of typed reads: takes the annotations out, converts what its converters list."""
        key = self._annotation_key
        annotation = raw.pop(key, None)
        annotations = None if annotation is None else {key: annotation}
        if scan:
            found = {key: raw[key] for key in raw if "@" in key}
            for key in found:
                del raw[key]
            annotations = {**annotations, **found} if annotations else found
        if converters is not None:
            for name, decode, typed in converters.properties:
                value = raw.get(name)
                if value is not None and value.__class__ is not typed:
                    try:
                        raw[name] = decode(value)
                    except (ValueError, TypeError, ArithmeticError) as error:
                        raise _conversion_error(converters, name, value, error) from None
            if converters.navigations:
                annotations = self._navigations(raw, converters, scan, annotations)
        elif self.v2:
            annotations = self._navigations(raw, None, scan, annotations)
        entity = Entity(raw)
        if annotations:
            entity._annotations = annotations
        return entity

    def _navigations(self, raw: Dict[str, Any], converters: Optional[_EntitySetConverters], scan: bool,
                     annotations: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
        """Expanded navigation properties typed with their target's converters; V2's ``__deferred``
        links of those not expanded moved to the annotations."""
        deferred = [key for key, value in raw.items() if value.__class__ is dict and "__deferred" in value]
        if deferred:
            annotations = dict(annotations or {})
            for key in deferred:
                annotations[key] = raw.pop(key)
        for name, target in converters.navigations if converters is not None else ():
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


def _flat(items: List[Any], converters: _EntitySetConverters) -> bool:
    """Whether V4 ``items`` are all entities (dicts) without an expanded navigation property
    (the usual answer: V4 sends a navigation property only when it is expanded). Both checks
    iterate in C."""
    return set(map(type, items)) <= _DICT and (
        not converters.navigation_names or converters.navigation_names.isdisjoint(chain.from_iterable(items)))


def _convert_property(items: List[Dict[str, Any]], converters: _EntitySetConverters, name: str, decode: Decoder, typed: type) -> None:
    """Decodes property ``name`` in each of ``items`` where its value is not of its Python type yet."""
    value: Any = None
    try:
        for raw in items:
            value = raw.get(name)
            if value is not None and value.__class__ is not typed:
                raw[name] = decode(value)
    except (ValueError, TypeError, ArithmeticError) as error:
        raise _conversion_error(converters, name, value, error) from None


def _conversion_error(converters: _EntitySetConverters, name: str, value: Any, error: Exception) -> ValueError:
    """The error of a value its type's decoder refused, naming the property."""
    return ValueError(f"{converters.name}.{name}: {value!r} is not a {converters.types[name]} value ({error})")
