#!/usr/bin/env python3
"""Sums the reports of the load generators of .ci/container.sh's rolling update and checks them.

  rolling.py REPORT.json...   print one JSON object: the figures docs/PERFORMANCE.md publishes
                              (games, games lost, acknowledged actions lost, reconnections and
                              their p50/p99/max, clock time charged and given back); exit 1 if a
                              game or an acknowledged action was lost, or nobody reconnected.

The percentiles are over every reconnection of every generator (each report lists every time
away, `reconnect_times_ms`), nearest-rank as the load generator's own; the highest of the
generators' own p99s is given too (from an image whose reports list no times, the only one).
"""

import json
import math
import sys


def percentile(ordered, q):
    """The nearest-rank percentile of an ascending list (None if empty), as src/loadgen/stats.rs."""
    if not ordered:
        return None
    return ordered[min(max(math.ceil(q * len(ordered)), 1), len(ordered)) - 1]


def main(paths):
    reports = [json.load(open(path)) for path in paths]
    total = lambda key: sum(report.get(key) or 0 for report in reports)
    away = sorted(ms for report in reports for ms in report.get("reconnect_times_ms") or [])
    charged = [report.get("clock_charged") or {} for report in reports]
    summary = {
        "load_generators": len(reports),
        "games": total("rooms"),
        "games_finished": total("games_finished"),
        "actions_answered": total("actions_answered"),
        "games_lost": total("games_lost"),
        "acknowledged_actions_lost": total("acknowledged_actions_lost"),
        "actions_in_flight_at_close": total("actions_in_flight_at_close"),
        "reconnects": total("reconnects"),
        "reconnect_p50_ms": percentile(away, 0.50),
        "reconnect_p99_ms": percentile(away, 0.99),
        "reconnect_max_ms": percentile(away, 1.0),
        "reconnect_p99_ms_worst_generator": max(
            (report.get("reconnect_time") or {}).get("p99_ms") or 0 for report in reports
        ),
        "away_on_own_time": sum(c.get("away_on_own_time", 0) for c in charged),
        "clock_charged_total_ms": sum(c.get("charged_total_ms", 0) for c in charged),
        "clock_charged_max_ms": max([c.get("charged_max_ms", 0) for c in charged] or [0]),
        "clock_given_back_total_ms": sum(c.get("given_back_total_ms", 0) for c in charged),
        "error_kinds": {},
    }
    for report in reports:
        for kind, count in (report.get("error_kinds") or {}).items():
            summary["error_kinds"][kind] = summary["error_kinds"].get(kind, 0) + count
    print(json.dumps(summary))
    lost = summary["games_lost"] + summary["acknowledged_actions_lost"]
    return 0 if lost == 0 and summary["reconnects"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
