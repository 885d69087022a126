#!/usr/bin/env python3
"""The flight sample as an SAP Gateway-flavoured OData V2 service on mock-sap 0.22.0.

    python Tests/backends/mocksap_server.py EDMX_V2 SEED [--port 0] [--no-csrf] [--require-if-match]
                                            [--page-size N]

* Service root: http://127.0.0.1:PORT/sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/ (127.0.0.1 only).
  Prints exactly `READY <port>` on stdout once it accepts requests; runs until killed.
* The entity types, keys, properties and associations are read from EDMX_V2
  (Examples/FlightSample/metadata-v2.xml) and registered through mock-sap's schema module
  (`mocksap.schema._register` and `SERVICES`: a private API, mock-sap's README says to edit
  schema.py instead). mock-sap then stores the rows in SQLite and serves reads, writes, $batch,
  `__delta`/`!deltatoken` and ETags from the `ChangedAt` property (ConcurrencyMode="Fixed").
* `GET .../$metadata` answers with EDMX_V2 itself, byte for byte: mock-sap's own generated document
  differs in association names, multiplicities and function imports (see README.md), and clients
  should use ours. mock-sap's generated document stays available at `GET /_native_metadata`.
* CSRF is on unless --no-csrf: a write without a token gets 403 + `x-csrf-token: Required`; fetch
  one with `X-CSRF-Token: Fetch` on a GET.
* Function imports of the sample are answered here (mock-sap has none for custom services):
  GET  GetAgencyDetails?agencynum='00000001'                        -> Travelagency
  GET  GetFlightDetails?carrid='AA'&connid='0017'&fldate=datetime'2016-01-20T00:00:00' -> FlightDetails
  POST UpdateAgencyPhoneNo?agencynum='00000001'&telephone='+1 555'  -> Travelagency (CSRF applies)
* POST /_reset restores the seed (rows and the delta's deletion log) and answers 204.
* POST /_conflict {"path": "Set(key)", "status": 409} (test only): the next change (PUT, PATCH,
  MERGE, DELETE, also tunnelled as POST with X-HTTP-Method) of that entity answers `status` (409 by
  default) with SAP Gateway's error envelope, once; POST /_reset forgets it. A stale If-Match is
  answered 412 by mock-sap itself.
* Media entities (types with `m:HasStream="true"`, models/media-v2.xml): served by media_v2.py
  (`$value` GET and PUT, media POST, `__metadata` media members, `GET /_media_log`,
  `POST /_media_quiet_change`).
* --page-size N: server-driven paging of entity set reads, as SAP Gateway pages: at most N entities
  a page, and `__next` (absolute, with `$skiptoken=<entities served so far>`) while more remain
  within the read's `$top`; `__count` (`$inlinecount=allpages`) counts the whole set. mock-sap
  itself does not page (it refuses `$skiptoken`): this layer asks it for `$skip`/`$top` windows.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlencode

from mocksap import schema
from mocksap import store
from mocksap.odata import SapError, etag_for, to_db_value
from mocksap.schema import EntityType, Nav, Prop, Service
from mocksap.server import Config, make_server
from mocksap.service import Response, _render  # private: renders one row as SAP does

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_functions import flight_details  # noqa: E402  (shared route data)
from media_v2 import V2Media  # noqa: E402

EDM = "{http://schemas.microsoft.com/ado/2008/09/edm}"
SAP = "{http://www.sap.com/Protocols/SAPData}"
SERVICE_NAME = "RMTSAMPLEFLIGHT_SRV"


def register(edmx: bytes) -> tuple[Service, dict]:
    """Register the EDMX's entity types and one V2 service with mock-sap's schema module."""
    root = ET.fromstring(edmx)
    schema_el = next(root.iter(EDM + "Schema"))
    ns = schema_el.get("Namespace")
    assocs = {}
    for a in schema_el.findall(EDM + "Association"):
        ends = {e.get("Role"): (e.get("Type").split(".")[-1], e.get("Multiplicity"))
                for e in a.findall(EDM + "End")}
        rc = a.find(EDM + "ReferentialConstraint")
        principal = rc.find(EDM + "Principal")
        dependent = rc.find(EDM + "Dependent")
        assocs[f"{ns}.{a.get('Name')}"] = {
            "ends": ends,
            "principal": principal.get("Role"),
            "pairs": list(zip([r.get("Name") for r in principal.findall(EDM + "PropertyRef")],
                              [r.get("Name") for r in dependent.findall(EDM + "PropertyRef")])),
        }
    types = {}
    for et in schema_el.findall(EDM + "EntityType"):
        keys = {r.get("Name") for r in et.findall(f"{EDM}Key/{EDM}PropertyRef")}
        props = []
        for p in et.findall(EDM + "Property"):
            a = p.attrib
            props.append(Prop(
                a["Name"], a["Type"], key=a["Name"] in keys,
                nullable=a.get("Nullable", "true") != "false",
                max_length=int(a["MaxLength"]) if a.get("MaxLength") else None,
                precision=int(a["Precision"]) if a.get("Precision") and a["Type"] == "Edm.Decimal" else None,
                scale=int(a["Scale"]) if a.get("Scale") else None,
                label=a.get(SAP + "label", ""),
                creatable=a.get(SAP + "creatable") != "false",
                updatable=a.get(SAP + "updatable") != "false",
                concurrency=a.get("ConcurrencyMode") == "Fixed"))
        navs = []
        for n in et.findall(EDM + "NavigationProperty"):
            assoc = assocs[n.get("Relationship")]
            to_type, multiplicity = assoc["ends"][n.get("ToRole")]
            if n.get("FromRole") == assoc["principal"]:
                join = list(assoc["pairs"])                     # principal column -> dependent
            else:
                join = [(d, p) for p, d in assoc["pairs"]]      # dependent column -> principal
            navs.append(Nav(n.get("Name"), to_type, "*" if multiplicity == "*" else "1", join))
        types[et.get("Name")] = schema._register(
            EntityType(et.get("Name"), props=props, navs=navs, edm_suffix=""))
    container = schema_el.find(EDM + "EntityContainer")
    sets = {es.get("Name"): es.get("EntityType").split(".")[-1]
            for es in container.findall(EDM + "EntitySet")}
    service = Service(SERVICE_NAME, ns, "Flight sample (RMTSAMPLEFLIGHT)", sets, version=2)
    schema.SERVICES[SERVICE_NAME] = service
    return service, types


class FlightSample:
    """Seed loading, reset, and the function imports, on top of a running mock-sap."""

    def __init__(self, httpd, service: Service, edmx: bytes, seed: dict):
        self.httpd = httpd
        self.mock = httpd.mock
        self.service = service
        self.edmx = edmx
        self.seed = seed
        self.media = V2Media(edmx, seed)

    def load(self) -> None:
        conn = self.mock.conn
        with self.mock.lock:
            for set_name, type_name in self.service.sets.items():
                et = schema.ENTITY_TYPES[type_name]
                conn.execute('DELETE FROM "%s"' % et.table)
                conn.execute("DELETE FROM deleted_entity WHERE entity_type = ?", (et.name,))
                rows = self.seed.get(set_name, [])
                if not rows:
                    continue
                names = [p.name for p in et.props]
                sql = 'INSERT INTO "%s" (%s) VALUES (%s)' % (
                    et.table, ", ".join('"%s"' % n for n in names), ", ".join("?" * len(names)))
                conn.executemany(sql, ([to_db_value(p, row.get(p.name)) for p in et.props]
                                       for row in rows))
            conn.commit()

    # -- function imports ------------------------------------------------------------------
    def function(self, handler, method: str, name: str, query: str, headers: dict) -> Response:
        params = {}
        for key, raw in parse_qsl(query, keep_blank_values=True):
            if key.startswith("$") or key.startswith("sap-"):
                continue
            params[key] = raw
        ctx = self.mock.context(handler._base_url(headers), self.mock.config.client)
        agency_type = schema.ENTITY_TYPES["Travelagency"]
        expected = {"GetAgencyDetails": "GET", "GetFlightDetails": "GET",
                    "UpdateAgencyPhoneNo": "POST"}[name]
        if method != expected:
            raise SapError("Function import %s requires HTTP method %s" % (name, expected), 405)

        def literal(key, prop):
            if key not in params:
                raise SapError("Parameter '%s' is missing" % key, 400)
            raw = params[key]
            text = raw[raw.index("'") + 1:-1] if raw.endswith("'") and "'" in raw else raw
            return to_db_value(prop, text.replace("''", "'"))

        if name in ("GetAgencyDetails", "UpdateAgencyPhoneNo"):
            keys = {"agencynum": literal("agencynum", agency_type.prop("agencynum"))}
            row = store.get(ctx.conn, agency_type, keys)
            if row is None:
                raise SapError("Resource not found for agency %s" % keys["agencynum"], 404)
            if name == "UpdateAgencyPhoneNo":
                phone = literal("telephone", agency_type.prop("telephone"))
                store.update(ctx.conn, agency_type, keys, {"telephone": phone})
                row = store.get(ctx.conn, agency_type, keys)
            entity = _render(ctx, row, agency_type, self.service, None, {})
            return Response(body={"d": entity}, headers={"DataServiceVersion": "1.0"})

        flight_type = schema.ENTITY_TYPES["Flight"]
        keys = {k: literal(k, flight_type.prop(k)) for k in ("carrid", "connid", "fldate")}
        row = store.get(ctx.conn, flight_type, keys)
        if row is None:
            raise SapError("Resource not found for flight %s" % keys, 404)
        details = flight_details(row["carrid"], row["connid"])
        details["distance"] = str(details["distance"])
        details["seatsfree"] = (row["seatsmax"] or 0) - (row["seatsocc"] or 0)
        details = {"__metadata": {"type": "%s.FlightDetails" % self.service.namespace},
                   **details}
        return Response(body={"d": {"GetFlightDetails": details}},
                        headers={"DataServiceVersion": "1.0"})


FUNCTIONS = ("GetAgencyDetails", "GetFlightDetails", "UpdateAgencyPhoneNo")


def paged(serve, base_url: str, path: str, query: str, page_size: int) -> Response:
    """One page of an entity set read: `serve(query)` (mock-sap's own answer) asked for the window
    after the entities already served (`$skiptoken`), one entity more than a page to see whether
    more follow; `__next` links the rest while the read's `$top` allows."""
    pairs = parse_qsl(query, keep_blank_values=True)
    options = dict(pairs)
    numbers = {}
    for name in ("$skiptoken", "$skip", "$top"):
        text = options.get(name)
        if text is not None and not text.isdigit():
            raise SapError("Invalid value '%s' for %s" % (text, name), 400)
        numbers[name] = int(text) if text is not None else None
    served = numbers["$skiptoken"] or 0
    top = numbers["$top"]
    size = page_size if top is None else max(0, min(page_size, top - served))
    window = [(k, v) for k, v in pairs if k not in ("$skiptoken", "$skip", "$top")]
    window += [("$skip", str((numbers["$skip"] or 0) + served)), ("$top", str(size + 1))]
    response = serve(urlencode(window, quote_via=quote, safe="$'(),:"))
    if response.status != 200 or "json" not in (response.headers.get("Content-Type") or ""):
        return response
    document = json.loads(response.body)
    results = document.get("d", {}).get("results")
    if not isinstance(results, list):
        return response
    document["d"]["results"] = results[:size]
    if len(results) > size and (top is None or served + size < top):
        rest = [(k, v) for k, v in pairs if k != "$skiptoken"] + [("$skiptoken", str(served + size))]
        document["d"]["__next"] = base_url + path + "?" + urlencode(rest, quote_via=quote, safe="$'(),:")
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
    return Response(response.status, headers=headers, body=document)


def armed_refusal(status: int, path: str) -> Response:
    """A change refused as SAP Gateway refuses one (its V2 error envelope), for `POST /_conflict`."""
    error = {"error": {"code": "/IWBEP/CX_MGW_BUSI_EXCEPTION/000",
                       "message": {"lang": "en", "value": f"{path} is in a state that does not allow this change"},
                       "innererror": {"application": {"component_id": "", "service_namespace": "/SAP/",
                                                      "service_id": "RMTSAMPLEFLIGHT_SRV", "service_version": "0001"},
                                      "transactionid": "0" * 32, "errordetails": []}}}
    return Response(status, body=json.dumps(error).encode(), content_type="application/json")


def install(httpd, sample: FlightSample, page_size: int = 0) -> None:
    """Route /_reset, $metadata and the function imports before mock-sap's own dispatch; page entity
    set reads when `page_size` is set."""
    base = httpd.RequestHandlerClass
    root = sample.service.path + "/"
    armed: dict[str, int] = {}  # POST /_conflict: entity path -> the status its next change gets

    class FlightHandler(base):
        def _serve(self, method, path, query, headers, body, opts, client):
            rest = path[len(root):] if path.startswith(root) else None
            if page_size and method == "GET" and rest in sample.service.sets:
                def serve(window):
                    return self._serve_unpaged(method, path, window, headers, body, dict(parse_qsl(window)), client)
                return paged(serve, self._base_url(headers), path, query, page_size)
            return self._serve_unpaged(method, path, query, headers, body, opts, client)

        def _serve_unpaged(self, method, path, query, headers, body, opts, client):
            if path == "/_reset" and method == "POST":
                sample.load()
                sample.media.reset()
                armed.clear()
                return Response(204, body=b"", content_type=None)
            if path == "/_conflict" and method == "POST":
                request = json.loads(body or b"{}")
                armed[unquote(request["path"]).lstrip("/")] = int(request.get("status", 409))
                return Response(204, body=b"", content_type=None)
            change = (headers.get("x-http-method") or method).upper()
            if path.startswith(root) and change in ("PUT", "PATCH", "MERGE", "DELETE"):
                status = armed.pop(unquote(path[len(root):]), None)
                if status is not None:
                    return armed_refusal(status, unquote(path[len(root):]))
            if path == "/_media_log" and method == "GET":
                return Response(body=sample.media.log_body())
            if path == "/_media_quiet_change" and method == "POST":
                request = json.loads(body or b"{}")
                found = sample.media.quiet_change(request["set"], str(request["key"]), request["content"].encode(),
                                                  request.get("type", "application/octet-stream"))
                return Response(204 if found else 404, body=b"", content_type=None)
            if path.startswith(root):
                route = sample.media.route(path[len(root):], change)
                if route is not None:
                    answer = self._media(route, method, path, query, headers, body, opts, client)
                    if answer is not None:
                        return answer
            if path == "/_native_metadata" and method == "GET":
                from mocksap.metadata import metadata_document
                return Response(body=metadata_document(sample.service),
                                content_type="application/xml")
            if path.startswith(root):
                rest = path[len(root):]
                if rest == "$metadata":
                    csrf = self._check_csrf(method, path, headers)  # issues a token on Fetch
                    if csrf is not None:
                        return csrf
                    # An ETag, as SAP Gateway gives its $metadata: a store's model check asks
                    # with If-None-Match and gets a 304 while the document is the same.
                    etag = '"%s"' % hashlib.sha1(sample.edmx).hexdigest()
                    if headers.get("if-none-match") == etag:
                        return Response(304, body=b"", content_type=None, headers={"ETag": etag})
                    return Response(body=sample.edmx, content_type="application/xml",
                                    headers={"DataServiceVersion": "2.0", "ETag": etag})
                if rest in FUNCTIONS:
                    csrf = self._check_csrf(method, path, headers)
                    if csrf is not None:
                        return csrf
                    return sample.function(self, method, rest, query, headers)
            return super()._serve(method, path, query, headers, body, opts, client)

        def _media(self, route, method, path, query, headers, body, opts, client):
            """A media route of media_v2.py; None when it is mock-sap's (a JSON POST, a MERGE)."""
            set_name, key, is_value = route
            et = schema.ENTITY_TYPES[sample.media.sets[set_name]]
            if (key is None and method == "GET") or (not is_value and method == "GET"):
                answer = super()._serve(method, path, query, headers, body, opts, client)
                if answer.status == 200:
                    answer.body = sample.media.decorate(set_name, answer.body, None)
                return answer
            if key is None:  # POST of a media entity: the body is its stream
                kind = headers.get("content-type") or "application/octet-stream"
                if kind.startswith(("application/json", "application/atom", "application/xml", "multipart/")):
                    return None
                csrf = self._check_csrf(method, path, headers)
                if csrf is not None:
                    return csrf
                with self.mock.lock:
                    keys = store.insert(self.mock.conn, et, {})
                new_key = str(next(iter(keys.values())))
                sample.media.store(set_name, new_key, body or b"", kind, "posts", path)
                address = "%s('%s')" % (set_name, new_key)
                answer = self._media((set_name, new_key, False), "GET", root + address, "", headers, b"", {}, client)
                answer.status = 201
                answer.headers["Location"] = self._base_url(headers) + root + address
                return answer
            keys = {et.keys[0].name: key}
            if not is_value:
                return None
            with self.mock.lock:
                row = store.get(self.mock.conn, et, keys)
            if row is None:
                return Response.error(SapError("Resource not found for the segment '%s'" % set_name, 404))
            if method == "GET":
                stream = sample.media.stream(set_name, key)
                if stream is None:
                    sample.media.logged_get(path, 204, 0)
                    return Response(204, body=b"", content_type=None)
                content, kind = stream
                media_etag = '"%s"' % hashlib.sha256(content).hexdigest()[:20]
                if headers.get("if-none-match") == media_etag:
                    sample.media.logged_get(path, 304, 0)
                    return Response(304, body=b"", content_type=None, headers={"ETag": media_etag})
                sample.media.logged_get(path, 200, len(content))
                return Response(200, body=content, content_type=kind, headers={"ETag": media_etag})
            if method == "PUT":
                csrf = self._check_csrf(method, path, headers)
                if csrf is not None:
                    return csrf
                supplied, current = headers.get("if-match"), etag_for(et, row)
                if supplied and supplied != "*" and current and supplied != current:
                    return Response.error(SapError("The entity was changed by another user (current ETag %s)" % current, 412))
                sample.media.store(set_name, key, body or b"", headers.get("content-type") or "application/octet-stream",
                                   "puts", path)
                with self.mock.lock:
                    store.update(self.mock.conn, et, keys, {}, merge=True)  # moves ChangedAt: a new ETag
                return Response(204, body=b"", content_type=None)
            return None

    httpd.RequestHandlerClass = FlightHandler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Flight sample OData V2 backend (mock-sap)")
    parser.add_argument("edmx")
    parser.add_argument("seed")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-csrf", action="store_true")
    parser.add_argument("--require-if-match", action="store_true",
                        help="answer 428 to writes without If-Match")
    parser.add_argument("--page-size", type=int, default=0,
                        help="entities per page of an entity set read (0: no paging)")
    args = parser.parse_args(argv)
    edmx = Path(args.edmx).read_bytes()
    with open(args.seed, encoding="utf-8") as f:
        seed = json.load(f)
    service, _types = register(edmx)
    httpd = make_server(Config(host="127.0.0.1", port=args.port, csrf=not args.no_csrf,
                               require_if_match=args.require_if_match, quiet=True,
                               log_requests=False))
    sample = FlightSample(httpd, service, edmx, seed)
    sample.load()
    install(httpd, sample, args.page_size)
    print("READY %d" % httpd.server_address[1], flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
