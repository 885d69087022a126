"""The offline loop from Python: open a store on a service with a defining request (a new store
downloads it), read offline, create an agency offline, upload it.

    python quickstart.py [SERVICE_ROOT]        (or set OOD_SERVICE)
"""
import os
import sys

import offline_odata

service = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OOD_SERVICE")
if not service:
    sys.exit("usage: quickstart.py SERVICE_ROOT (or set OOD_SERVICE)")

try:
    with offline_odata.Store.open(
        "quickstart-py.store",
        service_root=service,
        defining_requests={"Agencies": "TravelagencyCollection?$filter=country eq 'US'"},
    ) as store:
        agencies = store.get("TravelagencyCollection?$filter=city eq 'New York'&$select=name")
        print("read offline:", [agency["name"] for agency in agencies])
        store.create("TravelagencyCollection",
                     {"agencynum": "99000103", "name": "Quickstart Python", "city": "New York", "country": "US"})
        print("created offline:", len(store.request_queue()), "request queued")
        sent, refused = store.upload()
        print(f"uploaded: {sent} sent, {refused} refused")
except offline_odata.OfflineODataError as error:
    sys.exit(f"failed: {error}")
sys.exit(0 if refused == 0 else 1)
