#!/usr/bin/env python3
"""Runs a command against the V4 test service, paging its answers by 5 entities, behind the fault
proxy (Tests/sync/fault_proxy.py) with one rule set: the C and C++ tests of an interrupted download, which cannot drive the proxy
themselves. Appends the service root on the proxy to the command's arguments and stops the proxy
and the service when the command ends; exits with the command's status.

Usage: with_fault_proxy.py RULE_JSON -- COMMAND [ARGS...]
       RULE_JSON: the keyword arguments of FaultProxy.add, e.g.
       '{"action":"cut","method":"GET","match":"TravelagencyCollection","nth":3}'
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "backends"), os.path.join(HERE, "..", "sync")]

import backends  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 64
    rule = json.loads(argv[0])
    server = backends.start_v4(page_size=5)
    try:
        proxy = FaultProxy(server)
        try:
            proxy.add(**rule)
            return subprocess.call(argv[2:] + [proxy.service_root])
        finally:
            proxy.stop()
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
