"""A small OData V4 service for the tool's interruption tests: one entity set, Items (the download
benchmark's model), served in pages of a few entities, where one chosen request is held until the
test lets it go. The test so knows where the tool is (a request in flight) when it sends a signal,
without timing anything."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

METADATA = Path(__file__).resolve().parents[2] / "Benchmarks" / "python" / "download_items.xml"


class GatedService:
    """Serves GET Items in pages of `page_size` of `total` entities, and POST Items with 201.

    The request numbered `hold_at` (counting GETs of Items and POSTs alike, from 1) is held:
    `held` is set when it arrives, and it is answered only once `release` is set."""

    def __init__(self, total=100, page_size=5, hold_at=3):
        self.total, self.page_size, self.hold_at = total, page_size, hold_at
        self.held = threading.Event()
        self.release = threading.Event()
        self.count = 0
        self.posts = []
        # Creates with one of these names are refused with 400 (they go to the error archive).
        self.refused_names = set()
        self.refusal_message = "refused by the test service"
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *arguments):
                pass

            def do_GET(self):
                path, _, query = self.path.partition("?")
                if path.endswith("/$metadata"):
                    return self.send(METADATA.read_bytes(), "application/xml")
                if not path.endswith("/Items"):  # the service document (an upload's CSRF fetch)
                    return self.send(b'{"value":[{"name":"Items","url":"Items"}]}', "application/json")
                service.gate()
                start = int(query.split("$skiptoken=")[1]) if "$skiptoken=" in query else 0
                end = min(start + service.page_size, service.total)
                page = {"@odata.context": "$metadata#Items",
                        "value": [{"ID": i, "Name": f"item {i}"} for i in range(start + 1, end + 1)]}
                if end < service.total:
                    page["@odata.nextLink"] = f"Items?$skiptoken={end}"
                self.send(json.dumps(page).encode(), "application/json;odata.metadata=minimal")

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                service.gate()
                entity = json.loads(body)
                if entity.get("Name") in service.refused_names:
                    error = {"error": {"code": "400", "message": service.refusal_message}}
                    return self.send(json.dumps(error).encode(), "application/json", 400)
                with service.lock:
                    service.posts.append(entity)
                entity = dict(json.loads(body), **{"@odata.context": "$metadata#Items/$entity"})
                self.send(json.dumps(entity).encode(), "application/json;odata.metadata=minimal", 201)

            def send(self, body, content_type, status=200):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("OData-Version", "4.0")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the tool cancelled the transfer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.root = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def gate(self):
        with self.lock:
            self.count += 1
            number = self.count
        if number == self.hold_at:
            self.held.set()
            self.release.wait(60)

    def stop(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
