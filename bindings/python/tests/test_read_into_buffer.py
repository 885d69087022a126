"""Reads through one C call (ood_get_into, offline_odata._reader): the same answers as the general
path (ood_request and a result), offline and online, whether the answer fits the thread's buffer
or spills into a result; each thread its own buffer; errors as before."""
import json
import threading

import pytest

from offline_odata import MisuseError, Mode, NotFoundError, QuerySyntaxError, Store, _reader
from conftest import US_AGENCIES


def open_mixed(backend, tmp_path):
    return Store.open(tmp_path / f"{backend.kind}.store", service_root=backend.service_root,
                      defining_requests={"Agencies": US_AGENCIES})


def urls(store):
    key = f"TravelagencyCollection('{store.get(US_AGENCIES + '&$orderby=agencynum&$top=1')[0]['agencynum']}')"
    return [US_AGENCIES, US_AGENCIES + "&$orderby=name desc&$top=3", key, key + "/name", key + "/name/$value",
            "TravelagencyCollection/$count", "TravelagencyCollection?$filter=country eq 'XX'"]


def general_path(store, url, raw):
    """The answer through ood_request (the path get() takes with headers)."""
    return store._answer(url, raw=raw)


@pytest.fixture
def small_buffer():
    """This thread's reader replaced by one of 64 bytes, so that answers spill and it grows."""
    before = getattr(_reader._local, "reader", None)
    _reader._local.reader = _reader.Reader(64)
    yield _reader._local.reader
    if before is None:
        del _reader._local.reader
    else:
        _reader._local.reader = before


def test_answers_equal_the_general_paths_offline_and_online(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store, Store(service_root=backend.service_root, mode=Mode.ONLINE) as online:
        for answering in (store, online):
            for url in urls(store):
                for raw in (True, False):
                    assert answering.get(url, raw=raw) == general_path(answering, url, raw), (url, raw)


def test_answers_that_spill_are_the_same_and_the_buffer_grows(backend, tmp_path, small_buffer):
    with open_mixed(backend, tmp_path) as store:
        for url in urls(store):
            for raw in (True, False):
                assert store.get(url, raw=raw) == general_path(store, url, raw), (url, raw)
        assert small_buffer.capacity > 64
        everything = store.get(US_AGENCIES, raw=True)
        assert small_buffer.capacity >= len(everything.encode("utf-8"))
        assert store.get(US_AGENCIES, raw=True) == everything  # now without a spill


def test_text_beyond_ascii_comes_back_whole(backend, tmp_path, small_buffer):
    name = "Zürich Ærø ✓ 東京"
    with open_mixed(backend, tmp_path) as store:
        key = urls(store)[2]
        store.execute("PATCH", key, {"name": name})
        for fresh in (small_buffer, _reader.Reader()):
            _reader._local.reader = fresh
            assert store.get(key)["name"] == name
            assert store.get(key + "/name/$value", raw=True) == name
            assert json.loads(store.get(key, raw=True))


def test_each_thread_reads_its_own_answers(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        agencies = store.get(US_AGENCIES)
        assert len(agencies) >= 2
        failures = []
        readers = []  # the readers themselves, kept alive, so their ids cannot repeat
        together = threading.Barrier(4)

        def read_all(offset):
            readers.append(_reader.reader())
            together.wait()  # all four threads at once
            for round_ in range(60):
                agency = agencies[(offset + round_) % len(agencies)]
                key = f"TravelagencyCollection('{agency['agencynum']}')"
                got = store.get(key) if round_ % 2 else json.loads(store.get(key, raw=True))
                if got.get("name", got.get("d", {}).get("name")) != agency["name"]:
                    failures.append((key, got))

        threads = [threading.Thread(target=read_all, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        assert len({id(reader) for reader in readers}) == 4


def test_errors_are_the_general_paths_and_the_next_read_is_right(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        good = urls(store)[2]
        expected = store.get(good, raw=True)
        with pytest.raises(NotFoundError) as missing:
            store.get("TravelagencyCollection('99999999')")
        assert "99999999" in missing.value.message
        with pytest.raises(QuerySyntaxError):
            store.get("TravelagencyCollection?$filter=name eq", raw=True)
        with pytest.raises(ValueError):
            store.get("TravelagencyCollection\x00('1')")
        with pytest.raises(TypeError):
            store.get(b"TravelagencyCollection")
        assert store.get(good, raw=True) == expected
    with pytest.raises(MisuseError):
        store.get(good)


def test_urls_read_are_remembered_encoded_and_bad_ones_are_refused_every_time(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        good = urls(store)[2]
        expected = store.get(good, raw=True)
        assert _reader._URLS[good] == good.encode("utf-8")
        assert store.get(good, raw=True) == expected  # the remembered bytes read the same
        for _ in range(2):  # refused the second time too: nothing of them was remembered
            with pytest.raises(ValueError):
                store.get(good + "\x00")
            with pytest.raises(TypeError, match="url must be a str"):
                store.get(good.encode("utf-8"))
            with pytest.raises(TypeError, match="url must be a str"):
                store.get([good])  # not even hashable
        assert good + "\x00" not in _reader._URLS and good.encode("utf-8") not in _reader._URLS

        class Url(str):
            """A str subclass may hash and compare as it likes: never remembered."""

        assert store.get(Url(good), raw=True) == expected
        assert not any(type(url) is Url for url in _reader._URLS)


def test_the_remembered_urls_are_bounded():
    for number in range(_reader._MOST_URLS + 10):
        assert _reader.url_bytes(f"Bounded({number})") == f"Bounded({number})".encode("utf-8")
    assert 0 < len(_reader._URLS) <= _reader._MOST_URLS
    assert "Bounded(0)" not in _reader._URLS  # emptied when full
