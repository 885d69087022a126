"""``json`` decoding without its Python wrappers, for the answers of reads.

``JSONDecoder.decode`` runs two Python frames and two regular expressions around its C scanner:
about a microsecond of a small read, half of what decoding one entity costs. The store's
answers start with their value and end with it, so the scanner is called directly; any other text
(leading or trailing whitespace, an error) goes through ``decode``, which gives the same value or
the same ``JSONDecodeError``.
"""
import json.scanner
from json import JSONDecoder
from typing import Any, Callable, cast


def fast_loads(decoder: JSONDecoder) -> Callable[[str], Any]:
    """``decoder.decode``, calling its scanner directly when the text is one JSON value alone."""
    scan = json.scanner.make_scanner(cast(Any, decoder))  # typeshed wants a scanner context: a decoder is one
    decode = decoder.decode

    def loads(text: str) -> Any:
        try:
            value, end = scan(text, 0)
        except StopIteration:
            return decode(text)  # not a value at offset 0 (whitespace, nothing): decode says which
        if end != len(text):
            return decode(text)  # trailing text: whitespace is allowed, anything else an error
        return value

    return loads
