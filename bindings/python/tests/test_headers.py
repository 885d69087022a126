"""Per-request headers (``headers=``): they reach the service, stay with their request, and bad ones are refused."""
import pytest

from offline_odata import HTTPError, MisuseError, Mode, NotFoundError, Store


def requests_to(proxy, method, marker):
    return [seen for seen in proxy.requests if seen.method == method and marker in seen.path]


def test_request_headers_reach_the_service_with_the_stores_own(proxy):
    with Store(service_root=proxy.root, mode=Mode.ONLINE, headers={"X-Client": "py-test"}) as store:
        assert store.get("CarrierCollection?$top=1", headers={"X-Trace": "t-1", "Prefer": "return=representation"})
        assert store.get("CarrierCollection?$top=2")
        made = store.create("CarrierCollection", {"carrid": "QQ", "carrname": "Header Air"},
                            headers=[("X-Trace", "t-create")])
        assert made["carrid"] == "QQ"
        # The service wants If-Match to change an entity: only a request header can carry it.
        with pytest.raises(HTTPError, match="428"):
            store.update("CarrierCollection('QQ')", {"carrname": "No ETag"})
        store.update("CarrierCollection('QQ')", {"carrname": "Header Air 2"},
                     headers={"X-Trace": "t-update", "If-Match": made["@odata.etag"]})
        result = store.execute("GET", "CarrierCollection('QQ')", headers={"X-Trace": "t-execute"})
        assert result.value()["carrname"] == "Header Air 2"
        assert store.submit("GET", "CarrierCollection?$top=3", headers={"X-Trace": "t-submit"}).result(30)
        store.delete("CarrierCollection('QQ')", headers={"X-Trace": "t-delete", "If-Match": "*"})
        with pytest.raises(NotFoundError):
            store.get("CarrierCollection('QQ')")

    first, = requests_to(proxy, "GET", "top=1")
    assert first.headers["X-Trace"] == "t-1" and first.headers["Prefer"] == "return=representation"
    assert first.headers["X-Client"] == "py-test"
    second, = requests_to(proxy, "GET", "top=2")
    assert second.headers["X-Trace"] is None  # a request's headers are its own
    assert second.headers["X-Client"] == "py-test"
    assert [s.headers["X-Trace"] for s in requests_to(proxy, "POST", "CarrierCollection")] == ["t-create"]
    assert [s.headers["X-Trace"] for s in requests_to(proxy, "PATCH", "CarrierCollection")] == [None, "t-update"]
    assert requests_to(proxy, "PATCH", "CarrierCollection")[1].headers["If-Match"] == made["@odata.etag"]
    assert requests_to(proxy, "GET", "CarrierCollection('QQ')")[0].headers["X-Trace"] == "t-execute"
    assert requests_to(proxy, "GET", "top=3")[0].headers["X-Trace"] == "t-submit"
    assert [s.headers["X-Trace"] for s in requests_to(proxy, "DELETE", "CarrierCollection")] == ["t-delete"]


@pytest.mark.parametrize("headers", [
    {"": "no name"},
    {"X-Evil": "a\r\nX-Injected: 1"},
    [("X-Evil\n", "v")],
    {"X:Colon": "v"},
])
def test_bad_headers_are_misuse_and_nothing_is_sent(proxy, headers):
    with Store(service_root=proxy.root, mode=Mode.ONLINE) as store:
        before = len(proxy.requests)
        with pytest.raises(MisuseError):
            store.get("CarrierCollection?$top=1", headers=headers)
        with pytest.raises(MisuseError):
            store.submit("GET", "CarrierCollection?$top=1", headers=headers)
        with pytest.raises(MisuseError):
            store.create("CarrierCollection", {"carrid": "QX", "carrname": "Never"}, headers=headers)
        assert len(proxy.requests) == before
        with pytest.raises(NotFoundError):
            store.get("CarrierCollection('QX')")


@pytest.mark.parametrize("headers", [[("X-A",)], {"X-A": 5}, "X-A: 1", [("X-A", b"bytes")]])
def test_headers_of_the_wrong_type_are_type_errors(proxy, headers):
    with Store(service_root=proxy.root, mode=Mode.ONLINE) as store:
        with pytest.raises(TypeError):
            store.get("CarrierCollection?$top=1", headers=headers)
