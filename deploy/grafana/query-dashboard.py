#!/usr/bin/env python3
"""Runs every query of the ATA dashboard (dashboards/ata.json) against a Prometheus, as Grafana
would, and prints per panel how many series each query returns: a check, without Grafana, that the
dashboard shows data. Grafana's variables are given fixed values ($__rate_interval: 1m).

    deploy/grafana/query-dashboard.py [http://127.0.0.1:9090]

Exits 1 when a query fails or returns no series."""
import json
import pathlib
import sys
import urllib.parse
import urllib.request

prometheus = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:9090"
dashboard = json.loads((pathlib.Path(__file__).parent / "dashboards" / "ata.json").read_text())
variables = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "5m"}
empty = 0
for panel in dashboard["panels"]:
    for target in panel.get("targets", []):
        expr = target["expr"]
        for name, value in variables.items():
            expr = expr.replace(name, value)
        url = prometheus + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                result = json.load(r)["data"]["result"]
            values = sorted({s["value"][1] for s in result})
            shown = ", ".join(values[:3]) + (", ..." if len(values) > 3 else "")
            print(f"{panel['title']} [{target['refId']}]: {len(result)} series ({shown})")
        except Exception as e:  # noqa: BLE001 - one line per failed query
            result = []
            print(f"{panel['title']} [{target['refId']}]: failed: {e}")
        if not result:
            empty += 1
print(f"{empty} of the dashboard's queries without data" if empty else "every query of the dashboard has data")
sys.exit(1 if empty else 0)
