"""OData property values as Python types, both ways, the same for V2 and V4.

Reading: :data:`DECODERS` maps an ``Edm`` type name to a function that turns the JSON value the
store or the service sent (V2 ``/Date(ms)/`` and strings for numbers, V4 ISO text and numbers, or
strings under ``IEEE754Compatible``) into its Python type. Only types whose JSON value is not
already the Python value have one, so a converter table holds just the properties that need work.

Writing: :func:`body_json` writes a request body with those Python types in the store's dialect
(V2 ``/Date(ms)/`` and decimals as strings, V4 ISO text and decimals as numbers).

``Edm.DateTime`` (V2) and ``Edm.DateTimeOffset`` come as aware :class:`datetime.datetime` values:
V2's ``/Date(ms)/`` counts milliseconds since 1970 in UTC, so it is read in UTC (with the offset
it carries, if any), which makes V2's ``DateTime`` and V4's ``DateTimeOffset`` of the same data
equal. A naive datetime in a body is taken as UTC.
"""
import base64
import datetime
import json
import re
import uuid
from decimal import Decimal
from operator import attrgetter
from typing import Any, Callable, Dict, List, Optional

#: A decoder: the JSON value of one property (never None) -> its Python value.
Decoder = Callable[[Any], Any]

_UTC = datetime.timezone.utc
_fromisoformat = datetime.datetime.fromisoformat
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=_UTC)
_V2_DATE = re.compile(r"/Date\((-?\d+)(?:([+-])(\d{4}))?\)/\Z")
_DURATION = re.compile(r"(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?\Z")
_ISO_FRACTION = re.compile(r"(\.\d{1,6})\d*")


def _decimal(value: Any) -> Decimal:
    return value if value.__class__ is Decimal else Decimal(value)


def _float(value: Any) -> float:
    # V4 numbers are parsed as Decimal when the entity set has decimals (exactness), and
    # IEEE754Compatible services send "INF", "-INF", "NaN" as strings: float() takes them all.
    return value if value.__class__ is float else float(value)


def _int(value: Any) -> int:
    return value if value.__class__ is int else int(value)


def _instant(value: Any) -> datetime.datetime:
    """An aware datetime from V2 ``/Date(ms)/`` (``/Date(ms+0060)/``) or ISO text."""
    if value[0] != "/":
        try:
            parsed = _fromisoformat(value)
        except ValueError:
            # Before Python 3.11 fromisoformat takes neither "Z" nor 7 digits of fractions.
            parsed = _fromisoformat(_ISO_FRACTION.sub(r"\1", value.replace("Z", "+00:00")))
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=_UTC)
    match = _V2_DATE.match(value)
    if match is None:
        raise ValueError(f"not an OData date and time: {value!r}")
    instant = _EPOCH + datetime.timedelta(milliseconds=int(match.group(1)))
    if match.group(2):
        minutes = int(match.group(3))
        offset = datetime.timedelta(minutes=-minutes if match.group(2) == "-" else minutes)
        instant = instant.astimezone(datetime.timezone(offset))
    return instant


def _date(value: Any) -> datetime.date:
    if value[0] == "/":
        return _instant(value).date()
    return datetime.date.fromisoformat(value)


def _duration(value: Any) -> datetime.timedelta:
    match = _DURATION.match(value)
    if match is None:
        raise ValueError(f"not an OData duration: {value!r}")
    sign, days, hours, minutes, seconds = match.groups()
    delta = datetime.timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0),
                               seconds=float(Decimal(seconds)) if seconds else 0)
    return -delta if sign else delta


def _time(value: Any) -> datetime.time:
    """V4 ``hh:mm:ss[.f]`` or V2 ``PT13H20M00S``."""
    if value[:2] == "PT":
        delta = _duration(value)
        return (datetime.datetime.min + delta).time()
    try:
        return datetime.time.fromisoformat(value)
    except ValueError:
        return datetime.time.fromisoformat(_ISO_FRACTION.sub(r"\1", value))


def _binary(value: Any) -> bytes:
    # V4 writes base64url, V2 base64; both are read, padding or not.
    text = value.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


#: ``Edm`` type name -> decoder, for the types whose JSON value is not already their Python value.
DECODERS: Dict[str, Decoder] = {
    "Edm.Decimal": _decimal,
    "Edm.Double": _float,
    "Edm.Single": _float,
    "Edm.Int64": _int,
    "Edm.Date": _date,
    "Edm.DateTimeOffset": _instant,
    "Edm.DateTime": _instant,
    "Edm.TimeOfDay": _time,
    "Edm.Time": _time,
    "Edm.Duration": _duration,
    "Edm.Guid": uuid.UUID,
    "Edm.Binary": _binary,
}


def decoder_for(type_name: str) -> Optional[Decoder]:
    """The decoder of ``type_name``, or None when its JSON value is its Python value already."""
    return DECODERS.get(type_name)


class _NeverParsed:
    """The class of no JSON value: such types' decoders always have work to do."""


#: ``Edm`` type name -> the class a parsed JSON value of that type already has when its decoder
#: would return it unchanged (a V4 Int64 that came as a number, not as IEEE754Compatible text): the
#: hot loops skip the call then.
_ALREADY_TYPED: Dict[str, type] = {
    "Edm.Decimal": Decimal,
    "Edm.Double": float,
    "Edm.Single": float,
    "Edm.Int64": int,
}


def typed_class_of(type_name: str) -> type:
    """The class of a JSON value of ``type_name`` that its decoder returns as it is (see above)."""
    return _ALREADY_TYPED.get(type_name, _NeverParsed)


#: A column decoder: the JSON values of one property in many entities (none of them None) -> their
#: Python values in one list, or None when some value needs its type's :data:`DECODERS` entry to say
#: what it is (a V2 ``/Date(ms)/``, a naive time, a value that is no text): then nothing is kept.
ColumnDecoder = Callable[[List[Any]], Optional[List[Any]]]

_tzinfo = attrgetter("tzinfo")


def _column_of(convert: Callable[[Any], Any]) -> ColumnDecoder:
    """A column decoder mapping ``convert``, a builtin that gives what the type's decoder gives
    whenever it gives anything, so the loop over values runs in C."""

    def decode(values: List[Any]) -> Optional[List[Any]]:
        try:
            return list(map(convert, values))
        except (ValueError, TypeError, ArithmeticError):
            return None

    return decode


def _instants(values: List[Any]) -> Optional[List[Any]]:
    """V4 ISO instants with their offset, parsed in C; :func:`_instant` decides any other."""
    try:
        parsed = list(map(_fromisoformat, values))
    except (ValueError, TypeError):
        return None
    return None if None in map(_tzinfo, parsed) else parsed


#: ``Edm`` type name -> column decoder, for the types whose values a builtin converts as their
#: decoder would (the others are converted a value at a time).
COLUMN_DECODERS: Dict[str, ColumnDecoder] = {
    "Edm.Decimal": _column_of(Decimal),
    "Edm.Double": _column_of(float),
    "Edm.Single": _column_of(float),
    "Edm.Int64": _column_of(int),
    "Edm.Date": _column_of(datetime.date.fromisoformat),
    "Edm.DateTimeOffset": _instants,
    "Edm.DateTime": _instants,
}


def column_decoder_for(type_name: str) -> Optional[ColumnDecoder]:
    """The column decoder of ``type_name``, or None when its values are converted one at a time."""
    return COLUMN_DECODERS.get(type_name)


# ---- writing ----------------------------------------------------------------------------------

# A decimal is written as number text in V4: json has no hook for that, so it goes through as a
# marked string and the marks are taken off the finished text.
_NUMBER_MARK = "\x00ood-number:"
_MARKED_NUMBER = re.compile(r'"\\u0000ood-number:([-+0-9.Ee]+)"')


def _ms(value: datetime.datetime) -> int:
    aware = value if value.tzinfo is not None else value.replace(tzinfo=_UTC)
    delta = aware - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _iso_duration(value: datetime.timedelta) -> str:
    total = abs(value)
    seconds = total.seconds + total.microseconds / 1_000_000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    text = f"P{total.days}DT{int(hours)}H{int(minutes)}M{Decimal(str(round(seconds, 6))).normalize():f}S"
    return ("-" if value < datetime.timedelta(0) else "") + text


def _writer(dialect_is_v2: Callable[[], bool]) -> Callable[[Any], Any]:
    """``json.dumps``'s ``default``: a Python value of an OData type as the dialect writes it.
    The dialect is asked only when the body holds such a value."""

    def write(value: Any) -> Any:
        v2 = dialect_is_v2()
        if isinstance(value, Decimal):
            return format(value, "f") if v2 else _NUMBER_MARK + format(value, "f")
        if isinstance(value, datetime.datetime):
            if v2:
                return f"/Date({_ms(value)})/"
            aware = value if value.tzinfo is not None else value.replace(tzinfo=_UTC)
            return aware.isoformat()
        if isinstance(value, datetime.date):
            return f"/Date({_ms(datetime.datetime(value.year, value.month, value.day))})/" if v2 else value.isoformat()
        if isinstance(value, datetime.time):
            if v2:
                fraction = f".{value.microsecond:06}" if value.microsecond else ""
                return f"PT{value.hour:02}H{value.minute:02}M{value.second:02}{fraction}S"
            return value.isoformat()
        if isinstance(value, datetime.timedelta):
            return _iso_duration(value)
        if isinstance(value, uuid.UUID):
            return str(value)
        if isinstance(value, (bytes, bytearray)):
            encoded = base64.b64encode(bytes(value))
            return (encoded if v2 else encoded.replace(b"+", b"-").replace(b"/", b"_")).decode("ascii")
        raise TypeError(f"a request body cannot hold a {type(value).__name__} ({value!r}): use str, int, float, "
                        "bool, None, Decimal, date, datetime, time, timedelta, UUID, bytes, lists and dicts")

    return write


def body_json(body: Any, dialect_is_v2: Callable[[], bool]) -> bytes:
    """``body`` (dicts, lists and the Python types of :data:`DECODERS`) as JSON in the store's
    dialect, which ``dialect_is_v2()`` gives."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=_writer(dialect_is_v2))
    if "ood-number:" in text:
        text = _MARKED_NUMBER.sub(r"\1", text)
    return text.encode("utf-8")
