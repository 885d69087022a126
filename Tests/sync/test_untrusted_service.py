"""The service is not trusted (issue 20): the tool against the real V4 backend behind the fault proxy.

A page's next link or a redirect to another origin (another port here) or to `file:` stops the
download naming the link (without its user-info), the store unchanged, and the other origin gets
no request at all: not the credentials, not the configured header, not the cookie. A redirect on
the service's own origin is followed. A next link to a page already asked for stops the download.
Headers and cookies with line breaks are refused before anything is sent.
"""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import status, status_without_sync, store_tables, visible
from other_origin import OtherOrigin

PAGE = ["--page-size", "5"]
SECRETS = ["--user", "alice", "--header", "X-Api-Key: key-of-alice", "--cookie", "session=cookie-of-alice"]


@pytest.fixture
def other_origin():
    server = OtherOrigin()
    yield server
    server.stop()


def run_tool(*arguments):
    """The tool with the password of --user in its environment (never an argument)."""
    environment = {**os.environ, "OFFLINE_ODATA_PASSWORD": "password-of-alice"}
    return subprocess.run([os.environ["OOD_TOOL"], *map(str, arguments)], capture_output=True, text=True,
                          timeout=300, env=environment, stdin=subprocess.DEVNULL)


def downloaded_store(tool, make_store, proxy):
    store = make_store(proxy, "v4", ("Agencies", "TravelagencyCollection"))
    first = run_tool("download", store, *PAGE, *SECRETS)
    assert first.returncode == 0, first.stderr
    proxy.clear()  # the log starts after this first download
    return store


def page_with_next_link(link: str) -> str:
    return json.dumps({"@odata.context": "$metadata#TravelagencyCollection", "value": [], "@odata.nextLink": link})


@pytest.mark.parametrize("link", [
    pytest.param("http://mallory:stolen@127.0.0.1:{port}/TravelagencyCollection?$skiptoken=5", id="other-port"),
    pytest.param("https://127.0.0.1:{port}/TravelagencyCollection", id="other-scheme"),
    pytest.param("file:///etc/passwd", id="file"),
])
def test_a_next_link_off_the_services_origin_stops_the_download(link, tool, make_store, v4, fault_proxy, other_origin):
    proxy = fault_proxy(v4)
    store = downloaded_store(tool, make_store, proxy)
    before, status_before = store_tables(store), status_without_sync(tool, store)
    link = link.format(port=other_origin.port)
    proxy.add("rewrite", method="GET", match=r"^/TravelagencyCollection\?", nth=1, body=page_with_next_link(link))

    failed = run_tool("download", store, "--full", *PAGE, *SECRETS)
    assert failed.returncode == 1, failed.stdout
    assert "the next link on page 2 of 'Agencies'" in failed.stderr, failed.stderr
    assert link.replace("mallory:stolen@", "") in failed.stderr, failed.stderr
    assert "stolen" not in failed.stderr and "mallory" not in failed.stderr
    assert visible(store_tables(store)) == visible(before)  # kept pages aside: readers see none
    assert status_without_sync(tool, store) == status_before
    # The page with the refused link was not kept: only page 1, whose link was the service's.
    kept = store_tables(store)
    assert sorted(row[2] for row in kept["ood_download_page"]) == [1]
    assert [row[5] for row in kept["ood_download_resume"]] != [link]
    # The next download resumes at page 2 on the service (the rewrite was one answer) and ends.
    again = run_tool("download", store, "--full", *PAGE, *SECRETS)
    assert again.returncode == 0, again.stderr
    assert "resuming Agencies at page 2" in again.stderr
    assert other_origin.received == []


def test_a_redirect_to_another_origin_stops_the_download_and_sends_it_nothing(tool, make_store, v4, fault_proxy,
                                                                                other_origin):
    proxy = fault_proxy(v4)
    store = downloaded_store(tool, make_store, proxy)
    before = store_tables(store)
    target = f"http://127.0.0.1:{other_origin.port}/collect"
    proxy.add("respond", method="GET", match=r"^/TravelagencyCollection\?", nth=1, status=302,
              headers={"Location": target}, body="")

    failed = run_tool("download", store, "--full", *PAGE, *SECRETS)
    assert failed.returncode == 1, failed.stdout
    assert "the redirect (302)" in failed.stderr and target in failed.stderr, failed.stderr
    assert "leaves the service's origin" in failed.stderr
    assert visible(store_tables(store)) == visible(before)  # kept pages aside: readers see none
    assert other_origin.received == []


def test_a_redirect_on_the_services_origin_is_followed(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Agencies", "TravelagencyCollection"))
    proxy.add("respond", method="GET", match=r"^/TravelagencyCollection$", nth=1, status=307,
              headers={"Location": "/TravelagencyCollection"}, body="")

    done = run_tool("download", store, *PAGE, *SECRETS)
    assert done.returncode == 0, done.stderr
    assert "40 entities in 8 pages" in done.stdout
    first = [entry for entry in proxy.log() if entry["target"] == "/TravelagencyCollection"]
    assert [entry["fault"] for entry in first] == ["respond", None], first


def test_a_next_link_to_a_page_already_asked_for_stops_the_download(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = downloaded_store(tool, make_store, proxy)
    before = store_tables(store)
    # Page 1's next link is page 1 itself: followed, the download would never end.
    proxy.add("rewrite", method="GET", match=r"^/TravelagencyCollection$", nth=1,
              body=page_with_next_link("TravelagencyCollection"))

    failed = run_tool("download", store, "--full", *PAGE)
    assert failed.returncode == 1, failed.stdout
    assert "repeats a page this download already asked for" in failed.stderr, failed.stderr
    assert visible(store_tables(store)) == visible(before)  # kept pages aside: readers see none
    assert [entry["target"] for entry in proxy.log()] == ["/TravelagencyCollection"]


def test_an_answer_above_the_maximum_response_size_stops_the_download(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = downloaded_store(tool, make_store, proxy)
    before = store_tables(store)
    failed = run_tool("download", store, "--full", *PAGE, "--max-response-size", "200")
    assert failed.returncode == 1, failed.stdout
    assert "larger than 200 bytes" in failed.stderr, failed.stderr
    assert visible(store_tables(store)) == visible(before)  # kept pages aside: readers see none
    pages = run_tool("download", store, "--full", *PAGE, "--max-pages", "3")
    assert pages.returncode == 1 and "more than 3 pages" in pages.stderr, pages.stderr
    assert visible(store_tables(store)) == visible(before)  # kept pages aside: readers see none


@pytest.mark.parametrize("option, value, expected", [
    ("--header", "X-Api-Key: 1\r\nX-Evil: 1", "the value of the header 'X-Api-Key' contains CR, LF or NUL"),
    ("--header", "X-Api-Key: 1\nX-Evil: 1", "the value of the header 'X-Api-Key' contains CR, LF or NUL"),
    ("--cookie", "session=1; admin=1", "the value of the cookie 'session' contains CR, LF, NUL or ';'"),
    ("--cookie", "session=1\r\nX-Evil: 1", "the value of the cookie 'session' contains CR, LF, NUL or ';'"),
    ("--cookie", "ses sion=1", "the cookie name 'ses sion'"),
])
def test_headers_and_cookies_with_line_breaks_are_refused_before_anything_is_sent(option, value, expected, tool,
                                                                                  make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Agencies", "TravelagencyCollection"))
    refused = run_tool("download", store, option, value)
    assert refused.returncode != 0
    assert expected in refused.stderr, refused.stderr
    assert proxy.log() == []


def test_the_error_archive_keeps_at_most_max_message_length_of_the_services_words(tool, make_store, v4, fault_proxy):
    from test_faults import offline
    proxy = fault_proxy(v4)
    store = downloaded_store(tool, make_store, proxy)
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Refused"}')
    words = "refused because " + "x" * 5000
    proxy.add("respond", method="PATCH", status=400, body=json.dumps({"error": {"code": "E1", "message": words}}))
    refused = run_tool("upload", store, "--max-message-length", "40")
    assert refused.returncode == 3, refused.stderr  # archived
    archived = status(tool, store)["errorArchive"]
    assert len(archived) == 1
    message = archived[0]["message"]
    assert message.endswith(": the service answered 400: " + (words + " (E1)")[:40] + "..."), message

    zero = run_tool("upload", store, "--max-message-length", "0")
    assert zero.returncode == 64 and "--max-message-length takes a positive number" in zero.stderr, zero.stderr


def test_a_page_with_an_etag_that_no_header_can_carry_is_refused(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = downloaded_store(tool, make_store, proxy)
    before = store_tables(store)
    hostile = {"@odata.context": "$metadata#TravelagencyCollection",
               "value": [{"@odata.etag": "W/\"1\"\r\nX-Evil: 1", "agencynum": "00000001", "name": "Evil"}]}
    proxy.add("rewrite", method="GET", match=r"^/TravelagencyCollection", nth=1, body=json.dumps(hostile))
    failed = run_tool("download", store, "--full", *PAGE)
    assert failed.returncode == 1, failed.stdout
    assert "an ETag with CR, LF or NUL" in failed.stderr, failed.stderr
    assert visible(store_tables(store)) == visible(before)  # kept pages aside: readers see none
