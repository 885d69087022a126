"""The service's $metadata changes while changes are queued (issue 34), through the tool: `service
check --json`, a download that stops on a change it does not apply by itself, the `status` line,
and `service adopt`. The service is restarted on the same port with an edited copy of the sample's
model (backends.start_v4/start_v2(metadata=..., port=...))."""
from __future__ import annotations

import json

import pytest

import backends
from conftest import FLIGHT, get_json

URL_V4 = '<Property Name="url" Type="Edm.String" MaxLength="255"/>'
URL_V2 = '<Property Name="url" Type="Edm.String" MaxLength="255" sap:label="Web Site"/>'


def restarted(server, version, tmp_path, old, new):
    """The service again, on its port, serving the sample's model with `old` replaced by `new`."""
    text = (FLIGHT / f"metadata-{version}.xml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"changed-{version}.xml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    port = server.port
    server.stop()
    if version == "v4":
        return backends.start_v4(port=port, metadata=path)
    return backends.start_v2(csrf=False, port=port, metadata=path)


@pytest.mark.parametrize("version", ["v4", "v2"])
def test_a_removed_property_stops_the_download_shows_in_status_and_is_adopted(tool, make_store, tmp_path, version):
    server = backends.start_v4() if version == "v4" else backends.start_v2(csrf=False)
    try:
        path = make_store(server, version, ("Agencies", "TravelagencyCollection"))
        assert tool("download", path).returncode == 0
        unchanged = json.loads(tool("service", "check", path, "--json").stdout)
        assert unchanged["changed"] is False and unchanged["differences"] == []
        method = "PATCH" if version == "v4" else "MERGE"
        assert tool("request", path, "TravelagencyCollection('00000001')", "--method", method,
                    "--body", '{"url":"http://x.example"}').returncode == 0
        assert tool("request", path, "TravelagencyCollection('00000002')", "--method", method,
                    "--body", '{"name":"Kept"}').returncode == 0

        server = restarted(server, version, tmp_path, URL_V4 if version == "v4" else URL_V2, "")
        check = json.loads(tool("service", "check", path, "--json").stdout)
        assert check["changed"] is True and check["impact"] == "breaksPendingChanges"
        removed = [d for d in check["differences"] if d["kind"] == "propertyRemoved"]
        assert [(d["type"], d["member"]) for d in removed] == [("RMTSAMPLEFLIGHT.Travelagency", "url")]
        assert len(check["refusedRequests"]) == 1

        download = tool("download", path)
        assert download.returncode == 1 and "$metadata changed" in download.stderr
        status = json.loads(tool("status", path, "--json").stdout)
        assert status["serviceModelChange"]["impact"] == "breaksPendingChanges"
        assert "service model: changed" in tool("status", path).stdout

        adopted = json.loads(tool("service", "adopt", path, "--choice", "archiveRefused", "--json").stdout)
        assert adopted["adopted"] is True and adopted["archived"] == 1
        status = json.loads(tool("status", path, "--json").stdout)
        assert status["serviceModelChange"] is None
        assert [entry["kind"] for entry in status["errorArchive"]] == ["modelChanged"]
        assert tool("upload", path).returncode == 0
        agency = get_json(server.url("TravelagencyCollection('00000002')"))
        assert (agency.get("d") or agency)["name"] == "Kept"
        assert json.loads(tool("service", "check", path, "--json").stdout)["changed"] is False
    finally:
        server.stop()


def test_upload_first_batches_as_asked(tool, make_store, tmp_path, fault_proxy):
    """`service adopt --batch`: uploadFirst's upload goes in one $batch, as `upload --batch` would."""
    server = backends.start_v4()
    try:
        proxy = fault_proxy(server)
        path = make_store(proxy, "v4", ("Agencies", "TravelagencyCollection"))
        assert tool("download", path).returncode == 0
        for key in ("00000001", "00000002"):
            assert tool("request", path, f"TravelagencyCollection('{key}')", "--method", "PATCH",
                        "--body", '{"name":"Batched"}').returncode == 0
        server = restarted(server, "v4", tmp_path, URL_V4, "")
        adopted = tool("service", "adopt", path, "--batch", "--json")
        assert adopted.returncode == 0, adopted.stderr
        outcome = json.loads(adopted.stdout)
        assert outcome["adopted"] is True and outcome["uploaded"]["sent"] == 2, outcome
        assert [entry["target"] for entry in proxy.log() if entry["method"] == "POST"] == ["/$batch"]
        for key in ("00000001", "00000002"):
            assert get_json(server.url(f"TravelagencyCollection('{key}')"))["name"] == "Batched"
    finally:
        server.stop()
