"""Closing and finalizing: twice is harmless, nothing crashes at interpreter exit."""
import os
import subprocess
import sys

import pytest

from offline_odata import MisuseError, Store
from conftest import BACKENDS, US_AGENCIES


def test_everything_closes_twice_and_refuses_use_afterwards(v4, tmp_path):
    store = Store.open(tmp_path / "twice.store", service_root=v4.service_root,
                       defining_requests={"Agencies": US_AGENCIES})
    subscription = store.subscribe()
    subscription.close()
    subscription.close()
    store.close()
    store.close()
    assert not store.is_open and "closed" in repr(store)
    for call in (lambda: store.get("TravelagencyCollection"), store.status, lambda: store.download(),
                 lambda: store.submit("GET", "TravelagencyCollection"), store.subscribe, store.request_queue):
        with pytest.raises(MisuseError, match="closed"):
            call()


def test_a_subscription_closed_after_its_store_is_safe(v4, tmp_path):
    store = Store.open(tmp_path / "order.store", service_root=v4.service_root,
                       defining_requests={"Agencies": US_AGENCIES})
    subscription = store.subscribe(lambda event: None)
    store.close()
    subscription.close()


def test_open_stores_subscriptions_and_requests_left_at_exit_do_not_crash(v4, tmp_path):
    script = f"""
import offline_odata, sys
store = offline_odata.Store.open({str(tmp_path / 'exit.store')!r}, service_root={v4.service_root!r},
                                 defining_requests={{"Agencies": {US_AGENCIES!r}}})
events = store.subscribe(lambda event: None)
queued = store.subscribe()
online = offline_odata.Store(service_root={v4.service_root!r}, mode=offline_odata.Mode.ONLINE)
futures = [store.submit("GET", "TravelagencyCollection") for _ in range(20)]
futures += [online.submit("GET", "CarrierCollection") for _ in range(5)]
store.create("TravelagencyCollection", {{"agencynum": "99000099", "name": "Bye", "country": "US"}})
file_level = offline_odata.Store.open_file({str(tmp_path / 'file.store')!r})
print("done", flush=True)
sys.exit(0)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=os.environ.copy(), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n" and result.stderr == ""
