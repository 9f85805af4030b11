#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes tests/papi-presets.txt: the presets PAPI's src/papi_events.csv
# defines for each CPU hwprof has rows for, read as PAPI's loader does
# (blocks of CPU lines, later rows of a preset replacing earlier ones).
# usage: papi-presets.py CSV VERSION PMU... >> papi-presets.txt
import sys
def presets(path, pmu):
    get = found = 0
    res = {}
    for line in open(path):
        line = line.rstrip('\n')
        parts = [p.strip() for p in line.split(',')]
        t = parts[0]
        if not t or t.startswith('#'):
            continue
        if t.upper() == 'CPU':
            if get and found:
                get = found = 0
            if len(parts) > 1 and parts[1].lower() == pmu.lower() and (len(parts) < 3 or not parts[2]):
                get = 1
            continue
        if t.upper() in ('PRESET', 'EVENT'):
            if not get:
                continue
            found = 1
            name, kind = parts[1], parts[2]
            rest = [p for p in parts[3:]]
            # drop NOTE,"..."
            if 'NOTE' in rest:
                rest = rest[:rest.index('NOTE')]
            rest = [r for r in rest if r]
            post = ''
            if kind == 'DERIVED_POSTFIX':
                post, rest = rest[0], rest[1:]
            res[name] = (kind, post, rest)
    return res
if __name__ == '__main__':
    path, ver = sys.argv[1:3]
    for pmu in sys.argv[3:]:
        for k, (kind, post, ev) in presets(path, pmu).items():
            print(ver, pmu, k, kind, post or '-', ','.join(ev))
