"""A service whose `$metadata` fails while every download checks it first (issue 34), through the
tool, with the fault proxy (`fault_proxy.py`) in front of the real V4 service.

What the user expects: a failure that may pass by itself (503, 429, a lost connection) fails the
download as a failed page would, recorded as a failed download, and the next download checks
again and goes on; a `$metadata` the service does not serve (404, 501, a login page answered 200)
is a clear error naming `$metadata` and how to download without the check (`--no-model-check`),
which then downloads as before issue 34."""
from __future__ import annotations

import json

import pytest

METADATA = r"/\$metadata$"


def sync_status(tool, store) -> dict:
    result = tool("status", store, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("action, status, expected", [
    pytest.param("respond", 503, ["GET http://127.0.0.1:", "/$metadata", "the service answered 503"], id="503"),
    pytest.param("respond", 429, ["/$metadata", "the service answered 429"], id="429"),
    pytest.param("drop", 200, ["/$metadata", "the connection broke before the answer was complete"], id="connection-lost"),
])
def test_a_passing_metadata_failure_fails_the_download_like_a_page_and_the_next_one_goes_on(
        action, status, expected, tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Agencies", "TravelagencyCollection"))
    assert tool("download", store).returncode == 0
    proxy.clear()
    proxy.add(action, method="GET", match=METADATA, status=status)

    failed = tool("download", store, "--json")
    assert failed.returncode == 1, failed.stdout
    for text in expected:
        assert text in failed.stderr, failed.stderr
    error = json.loads(failed.stdout)["error"]
    assert error["code"] == ("OOD_HTTP" if action == "respond" else "OOD_NETWORK"), error
    assert "--no-model-check" not in failed.stderr  # nothing to skip: it may pass by itself
    assert proxy.log() == []  # no page was asked for
    download = sync_status(tool, store)["sync"]["downloads"][0]
    assert download["definingRequest"] == "Agencies" and download["outcome"] == "failed"

    # The fault was one answer: the next download checks again and downloads.
    again = tool("download", store)
    assert again.returncode == 0, again.stderr
    assert "downloaded Agencies" in again.stdout
    assert [entry["target"].split("?")[0] for entry in proxy.log()][:1] == ["/TravelagencyCollection"]


@pytest.mark.parametrize("status, body, content_type, expected", [
    pytest.param(404, None, None, "the service does not serve its $metadata", id="404"),
    pytest.param(501, None, None, "the service does not serve its $metadata", id="501"),
    pytest.param(200, "<html><body>Please log in</body></html>", "text/html",
                 "the service's $metadata is not a metadata document", id="login-page"),
])
def test_a_metadata_the_service_does_not_serve_is_a_clear_error_and_no_model_check_downloads(
        status, body, content_type, expected, tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Agencies", "TravelagencyCollection"))
    assert tool("download", store).returncode == 0
    proxy.clear()
    proxy.add("respond", method="GET", match=METADATA, status=status, times=100, body=body, content_type=content_type)

    failed = tool("download", store, "--json")
    assert failed.returncode == 1, failed.stdout
    assert expected in failed.stderr and "--no-model-check" in failed.stderr, failed.stderr
    error = json.loads(failed.stdout)["error"]
    assert error["code"] == "OOD_METADATA", error
    assert error.get("httpStatus") == (status if status != 200 else None), error
    assert proxy.log() == []
    # The explicit check says the same.
    check = tool("service", "check", store)
    assert check.returncode == 1 and expected in check.stderr, check.stderr

    # Without the check: the download goes on as before, and asks nothing of $metadata.
    asked = len([entry for entry in proxy._call("GET", "/_proxy/log")["requests"]])
    unchecked = tool("download", store, "--no-model-check")
    assert unchecked.returncode == 0, unchecked.stderr
    assert "downloaded Agencies" in unchecked.stdout
    targets = [entry["target"] for entry in proxy._call("GET", "/_proxy/log")["requests"]][asked:]
    assert targets and not any("$metadata" in target for target in targets), targets
