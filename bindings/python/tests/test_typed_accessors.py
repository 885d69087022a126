"""Typed accessors (issue 24): entities, entity, count and a paging iterator; Store with real
keyword parameters checked by mypy; execute_async beside the blocking execute (issue 22); Store.open_file;
errors naming Python methods; discard() never dropping the whole archive by default."""
import dataclasses
import os
import subprocess
import sys
from concurrent.futures import Future

import pytest

from offline_odata import Entity, MisuseError, Mode, NotFoundError, Options, RequestFuture, Store, StoreOptions
from conftest import REPOSITORY, US_AGENCIES

BINDING = os.path.join(REPOSITORY, "bindings", "python")


def open_store(backend, tmp_path):
    return Store(tmp_path / f"{backend.kind}.store", service_root=backend.service_root,
                 defining_requests={"Agencies": US_AGENCIES})


def test_entities_entity_and_count(backend, tmp_path):
    with open_store(backend, tmp_path) as store:
        agencies = store.entities(US_AGENCIES + "&$orderby=agencynum")
        assert agencies and all(type(a) is Entity for a in agencies)
        first = store.entity(f"TravelagencyCollection('{agencies[0]['agencynum']}')")
        assert first == agencies[0]
        assert store.count(US_AGENCIES) == len(agencies) == store.count("TravelagencyCollection/$count")
        with pytest.raises(ValueError, match="Store.entities: .* does not answer a collection"):
            store.entities(f"TravelagencyCollection('{first['agencynum']}')")
        with pytest.raises(ValueError, match="Store.entity: .* does not answer one entity"):
            store.entity(US_AGENCIES)
        with pytest.raises(NotFoundError):
            store.entity("TravelagencyCollection('99999999')")


def test_iter_reads_page_by_page_and_gives_every_entity(v4, proxy):
    with Store(service_root=proxy.root, mode=Mode.ONLINE) as store:
        every = store.entities("BookingCollection?$orderby=bookid")
        proxy.requests.clear()
        iterator = store.iter("BookingCollection?$orderby=bookid")
        first = next(iterator)
        assert isinstance(first, Entity) and first == every[0]
        pages_so_far = len([r for r in proxy.requests if "BookingCollection" in r.path])
        assert pages_so_far == 1  # the first page only: the service pages by 10
        assert [first] + list(iterator) == every and len(every) > 30


def test_execute_async_is_the_non_blocking_execute(v4, tmp_path):
    with open_store(v4, tmp_path) as store:
        future = store.execute_async("GET", "TravelagencyCollection/$count")
        assert isinstance(future, RequestFuture) and isinstance(future, Future)
        assert future.result(60).value() == store.execute("GET", "TravelagencyCollection/$count").value()


def test_store_opens_with_keyword_options_and_refuses_a_misspelt_one(v4, tmp_path):
    with pytest.raises(TypeError, match="servce_root"):
        Store(tmp_path / "typo.store", servce_root=v4.service_root)  # type: ignore[call-arg]
    with Store.open(tmp_path / "fine.store", service_root=v4.service_root) as store:
        assert store.path.endswith("fine.store")
    with Store.open_file(tmp_path / "fine.store") as file:
        assert file.format_version == 14 and isinstance(file, Store)


def test_the_option_typeddicts_follow_options():
    fields = {field.name for field in dataclasses.fields(Options)} - {"path"}
    assert set(StoreOptions.__annotations__) == fields


def test_errors_name_the_python_method_not_the_c_function(tmp_path):
    with pytest.raises(MisuseError) as caught:
        Store(tmp_path / "x.store", mode=17)
    assert caught.value.message.startswith("Store: ") and "ood_options" not in caught.value.message
    with pytest.raises(MisuseError) as again:
        Store.open(tmp_path / "x.store", headers=[("X-A\n", "1")])
    assert again.value.message.startswith("Store.open: ")


def test_discard_needs_an_id_or_all(v4, tmp_path):
    with open_store(v4, tmp_path) as store:
        with Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
            taken = online.entities("TravelagencyCollection?$filter=country ne 'US'&$top=1")[0]
        store.create("TravelagencyCollection", {"agencynum": taken["agencynum"], "name": "Clash", "country": "US"})
        assert store.upload() == (0, 1)
        for call in (store.discard, store.delete_archived):
            with pytest.raises(TypeError, match="all=True"):
                call()
        with pytest.raises(TypeError, match="not both"):
            store.discard(store.error_archive()[0]["id"], all=True)
        assert len(store.error_archive()) == 1
        assert store.discard(all=True) == 1 and store.error_archive() == []


@pytest.mark.parametrize("source, error", [
    ("import offline_odata\noffline_odata.Store('a.store', servce_root='http://x/')\n", 'Unexpected keyword argument "servce_root"'),
    ("import offline_odata\nwith offline_odata.Store('a.store') as s:\n    n: str = s.count('X')\n", "Incompatible types in assignment"),
    ("import offline_odata\noffline_odata.Store.open_file('a.store', mode=1)\n", 'Unexpected keyword argument "mode"'),
])
def test_mypy_strict_refuses_what_the_types_do_not_allow(tmp_path, source, error):
    pytest.importorskip("mypy", reason="mypy is installed by make test (the venv's .mypy stamp)")
    (tmp_path / "wrong.py").write_text(source, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "wrong.py"],
                            cwd=str(tmp_path), capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, MYPYPATH=BINDING))
    assert result.returncode == 1 and error in result.stdout, result.stdout


def test_mypy_strict_accepts_the_package_and_the_typed_example(tmp_path):
    pytest.importorskip("mypy", reason="mypy is installed by make test (the venv's .mypy stamp)")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path), "offline_odata",
                             "examples/typed_example.py"], cwd=BINDING, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout


def test_the_typed_example_runs_against_the_service(v4, tmp_path):
    result = subprocess.run([sys.executable, os.path.join(BINDING, "examples", "typed_example.py"),
                             str(tmp_path / "typed.store")], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, OOD_SERVICE=v4.service_root))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "created Typed Travel: credit limit Decimal('1234567890.12'), local True" in lines
    assert any(line.startswith("bookings total ") for line in lines)
    assert any(line.endswith(" carriers (asynchronously)") for line in lines)
