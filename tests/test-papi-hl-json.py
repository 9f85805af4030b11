#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The high-level API's output in PAPI 7.0's schema, read the way PAPI
7.0's papi_hl_output_writer.py reads it (its merge, detail and summary
passes: the keys it looks up and the types it converts), with the
counts of tests/hl-prog.c.

usage: test-papi-hl-json.py HL-PROG [sanitized] [preload=LIB]
(preload: LD_PRELOAD for HL-PROG alone, under TSan, as kernel_env in
tests/meson.build has it)"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import OrderedDict

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def is_count(v):
    try:
        int(v)
        return isinstance(v, str)
    except (TypeError, ValueError):
        return False


def main():
    prog = sys.argv[1]
    exact = "sanitized" not in sys.argv[2:]
    preload = [a[8:] for a in sys.argv[2:] if a.startswith("preload=")]
    tmp = tempfile.mkdtemp(prefix="hwprof-hljson-")
    try:
        env = dict(os.environ, PAPI_EVENTS="perf::PAGE-FAULTS",
                   PAPI_OUTPUT_DIRECTORY=tmp, OMPI_COMM_WORLD_RANK="3")
        env.pop("PAPI_REPORT", None)
        if preload:
            env["LD_PRELOAD"] = preload[0]
        r = subprocess.run([prog], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        print(r.stdout, end="")
        if r.returncode == 99:
            return 99
        check(r.returncode == 0, "hl-prog exited %d" % r.returncode)
        out = os.path.join(tmp, "papi_hl_output")
        files = sorted(os.listdir(out))
        # the writer takes the rank from the name: rank_<N>.json
        check(files == ["rank_000003.json"], "files %s" % files)
        rank = int(files[0].split("_", 1)[1].rsplit(".", 1)[0])
        check(rank == 3, "rank %d" % rank)
        with open(os.path.join(out, files[0])) as f:
            text = f.read()
        print(text, end="")
        data = json.loads(text, object_pairs_hook=OrderedDict)
    finally:
        shutil.rmtree(tmp)

    check(data.get("papi_version") == "7.0.0.0", "papi_version")
    for k in ("cpu_info", "max_cpu_rate_mhz", "min_cpu_rate_mhz"):
        check(k in data, "no " + k)
    defs = data["event_definitions"]
    check(list(defs) == ["perf::PAGE-FAULTS"], "event_definitions %s" % list(defs))
    for name, d in defs.items():
        # the summary totals a delta event of the perf_event component
        check(d.get("component") == "perf_event" and d.get("type") == "delta",
              "definition of %s: %s" % (name, d))

    threads = data["threads"]
    check(list(threads) == ["0", "1"], "threads %s" % list(threads))
    got = {}
    for tk, tv in threads.items():
        regions = tv["regions"]
        ids = list(regions)
        check(ids == [str(i) for i in range(len(ids))], "thread %s ids %s" % (tk, ids))
        for rid, reg in regions.items():
            for k in ("name", "parent_region_id", "cycles", "real_time_nsec"):
                check(k in reg, "thread %s region %s: no %s" % (tk, rid, k))
            p = reg["parent_region_id"]
            check(is_count(p) and (int(p) == -1 or p in regions and int(p) < int(rid)),
                  "thread %s region %s: parent %r" % (tk, rid, p))
            for k, v in reg.items():
                if k in ("name", "parent_region_id"):
                    continue
                # every event the summary looks up in the definitions
                check(k in ("cycles", "real_time_nsec") or k in defs,
                      "thread %s region %s: %s not defined" % (tk, rid, k))
                if isinstance(v, dict):
                    keys = list(v)
                    check(keys[0] == "region_value" and
                          keys[1:] == ["read_%d" % i for i in range(1, len(keys))],
                          "read keys %s" % keys)
                    check(all(is_count(x) for x in v.values()), "values %s" % v)
                else:
                    check(is_count(v), "%s: %r" % (k, v))
            got[(tk, rid)] = reg

    def val(reg, k):
        v = reg[k]
        return int(v["region_value"] if isinstance(v, dict) else v)

    pf = "perf::PAGE-FAULTS"
    want = {("0", "3"): ("outer", "-1", 14, None),
            ("0", "4"): ("inner", "3", 5, 3),
            ("0", "5"): ("inner", "3", 5, None),
            ("1", "0"): ("worker", "-1", 7, None)}
    for w in ("0", "1", "2"):	# the warm-up pass: its names and parents
        want[("0", w)] = ("warm-outer" if w == "0" else "warm-inner",
                          "-1" if w == "0" else "0", None, None)
    check(set(got) == set(want), "regions %s" % sorted(got))
    for key, (name, parent, faults, read1) in want.items():
        reg = got.get(key)
        if not reg:
            continue
        check(reg["name"] == name and reg["parent_region_id"] == parent,
              "%s: %s under %s" % (key, reg["name"], reg["parent_region_id"]))
        if faults is None:
            continue
        n = val(reg, pf)
        check(n == faults if exact else n >= faults, "%s: %d faults, want %d" % (key, n, faults))
        if read1 is not None:
            r1 = int(reg[pf]["read_1"])
            check(r1 == read1 if exact else r1 >= read1, "%s: read_1 %d, want %d" % (key, r1, read1))
            check(int(reg["real_time_nsec"]["read_1"]) <= val(reg, "real_time_nsec"),
                  "%s: the read before the end" % (key,))
        check(val(reg, "real_time_nsec") > 0 and val(reg, "cycles") > 0, "%s: times" % (key,))
    outer, inner = got.get(("0", "3")), got.get(("0", "4"))
    if outer and inner:
        check(val(outer, "real_time_nsec") >= val(inner, "real_time_nsec"),
              "outer lasts longer than inner")

    # the summary pass: passes of one name counted, delta events totalled
    count = {}
    for tv in threads.values():
        for reg in tv["regions"].values():
            count[reg["name"]] = count.get(reg["name"], 0) + 1
    check(count == {"warm-outer": 1, "warm-inner": 2, "outer": 1, "inner": 2, "worker": 1},
          "passes %s" % count)

    if fails:
        print("papi-hl-json: %d check(s) failed" % len(fails))
        return 1
    print("papi-hl-json: all checks passed")
    return 0


sys.exit(main())
