"""Changes on kept-alive connections (issue 38, target 6): an upload sends its changes one after the
other on one connection, and a change is still never applied twice when that connection dies at
the worst moment.

libcurl sends a request again by itself, on a new connection, when a reused one closes before any
byte of an answer came. For a change that the service applied before the connection closed, that
second sending would apply it twice. The engine refuses it (HTTPTransport's resend guard): the
change is in doubt, and the next upload settles it before sending anything again. The fault proxy
(`fault_proxy.py`) keeps connections alive and logs whether a request came on a reused one.
"""
from __future__ import annotations

import pytest

from test_faults import agency, offline
from test_upload_exactly_once import agencies_named, queue_of, synced_store, upload


def agency_body(key: str, name: str) -> str:
    return f'{{"agencynum":"{key}","name":"{name}","street":"Main St","city":"Oslo","country":"NO"}}'


def posts(proxy) -> list[dict]:
    return [entry for entry in proxy.log() if entry["method"] == "POST"]


def test_an_upload_sends_its_changes_on_one_kept_alive_connection(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    for number in range(1, 5):
        offline(tool, store, "POST", "TravelagencyCollection", agency_body(f"9700000{number}", f"Kept Alive {number}"))
    code, document, stderr = upload(tool, store)
    assert code == 0, stderr
    assert document == {"sent": 4, "archived": 0, "inDoubt": 0, "queued": 0}
    sent = posts(proxy)
    assert len(sent) == 4
    # The first may open the upload's connection; each later one goes on a connection in use.
    assert all(entry["reused"] for entry in sent[1:]), sent
    for number in range(1, 5):
        assert len(agencies_named(v4, f"Kept Alive {number}")) == 1


@pytest.mark.parametrize("reset", [False, True], ids=["fin", "rst"])
def test_a_create_applied_whose_kept_alive_connection_closes_is_not_sent_again(reset, tool, make_store, v4,
                                                                                fault_proxy):
    """The worst moment: the service applied the change, then the reused connection closed with no
    byte of the answer (a FIN, or a reset). libcurl would send it again on a new connection."""
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "POST", "TravelagencyCollection", agency_body("97000011", "Before The Close"))
    offline(tool, store, "POST", "TravelagencyCollection", agency_body("97000012", "Applied Before The Close"))
    offline(tool, store, "PATCH", "TravelagencyCollection('00000002')", '{"name":"After The Close"}')
    proxy.add("drop", method="POST", nth=2, reset=reset)

    code, document, stderr = upload(tool, store)
    assert code == 1, stderr
    dropped = [entry for entry in posts(proxy) if entry["fault"] == "drop"]
    assert len(dropped) == 1 and dropped[0]["reused"], posts(proxy)  # it came on a reused connection
    assert "was not sent again" in stderr, stderr
    # Sent once, applied once: libcurl did not send it a second time.
    assert len(posts(proxy)) == 2
    assert len(agencies_named(v4, "Applied Before The Close")) == 1
    assert queue_of(tool, store) == [("POST", "inDoubt"), ("PATCH", "pending")]

    # The next upload reads it back by its key, finds it applied, and sends only the rest.
    code, document, stderr = upload(tool, store)
    assert code == 0, stderr
    assert document == {"sent": 2, "archived": 0, "inDoubt": 0, "queued": 0}
    assert len(posts(proxy)) == 2
    assert len(agencies_named(v4, "Applied Before The Close")) == 1
    assert agency(v4, "00000002")["name"] == "After The Close"


def test_a_change_on_a_kept_alive_connection_the_service_closed_unread_is_sent_once_later(tool, make_store, v4,
                                                                                         fault_proxy):
    """The common case of a connection closed under a change: the service closed it as idle, and the
    change never reached it. The engine cannot tell this from the case above: in doubt, then found
    not applied and sent (once)."""
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "POST", "TravelagencyCollection", agency_body("97000021", "First On The Connection"))
    offline(tool, store, "POST", "TravelagencyCollection", agency_body("97000022", "Closed Unread"))
    proxy.add("hang", method="POST", nth=2, seconds=0)  # read, never forwarded, connection closed

    code, _, stderr = upload(tool, store)
    assert code == 1, stderr
    closed = [entry for entry in posts(proxy) if entry["fault"] == "hang"]
    assert len(closed) == 1 and closed[0]["reused"] and not closed[0]["forwarded"], posts(proxy)
    assert len(posts(proxy)) == 2
    assert agencies_named(v4, "Closed Unread") == []
    assert queue_of(tool, store) == [("POST", "inDoubt")]

    code, document, stderr = upload(tool, store)
    assert code == 0, stderr
    assert document == {"sent": 1, "archived": 0, "inDoubt": 0, "queued": 0}
    assert [entry["forwarded"] for entry in posts(proxy)] == [True, False, True]
    assert len(agencies_named(v4, "Closed Unread")) == 1
