"""Merge the result files of one commit's run, split over several commands, into one.

A lent GPU machine runs a command for at most a few minutes, so the benchmark of
record is run as several commands, each writing its own file (and each file holds the
graphs that finished before its command's limit). ::

    python -m concomp.bench.merge OUT.json PART.json [PART.json ...] [--commit SHA]

The parts must share the schema, the device, the machine and the concomp commit
(``--commit`` replaces a checkout's recorded commit, e.g. ``abc1234-dirty`` from a
copy of the tree that was committed as ``--commit`` afterwards; the replaced value is
kept under ``commit_recorded``). Graphs are united (a graph in two parts keeps the
first part's statistics), rows are concatenated in part order, every part's command
is kept under ``commands``, and the merged file is ``complete`` only if every part is.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .results import SCHEMA, write

__all__ = ["merge", "main"]


def _same(docs: Sequence[dict[str, Any]], what: str, get: Any) -> Any:
    values = {json.dumps(get(d), sort_keys=True) for d in docs}
    if len(values) != 1:
        raise ValueError(
            f"the result files differ in {what}: {sorted(values)}. Fix: merge only the files "
            "of one commit's run on one machine."
        )
    return get(docs[0])


def merge(docs: Sequence[dict[str, Any]], commit: str | None = None) -> dict[str, Any]:
    """One result document from the parts ``docs`` (see the module docstring).

    Examples
    --------
    >>> a = {"schema": 1, "device": "cpu", "machine": {}, "versions": {"concomp_commit": "x"},
    ...      "graphs": {"g": {}}, "rows": [1], "skipped": [], "complete": True,
    ...      "command": "a", "problems": ["cc"], "reps": 5, "quick": False, "created": "t"}
    >>> b = dict(a, graphs={"h": {}}, rows=[2], command="b", problems=["msf"])
    >>> m = merge([a, b])
    >>> sorted(m["graphs"]), m["rows"], m["problems"], m["commands"]
    (['g', 'h'], [1, 2], ['cc', 'msf'], ['a', 'b'])
    """
    if not docs:
        raise ValueError("argument `docs`: no result files given. Fix: pass at least one.")
    for d in docs:
        if d.get("schema") != SCHEMA:
            raise ValueError(
                f"a result file has schema {d.get('schema')!r}, not {SCHEMA}; it was not "
                "written by this harness. Fix: merge only files python -m concomp.bench wrote."
            )
    recorded = _same(docs, "concomp commit", lambda d: d["versions"].get("concomp_commit"))
    _same(docs, "device", lambda d: d["device"])
    _same(docs, "machine", lambda d: d["machine"])
    _same(docs, "timed runs per measurement", lambda d: d["reps"])
    _same(docs, "quick sizes", lambda d: d["quick"])
    out: dict[str, Any] = {k: v for k, v in docs[0].items() if k != "command"}
    out["versions"] = dict(docs[0]["versions"])
    if commit is not None:
        out["versions"]["concomp_commit"] = commit
        out["commit_recorded"] = recorded
    out["commands"] = [d.get("command", "") for d in docs]
    out["command"] = " ; ".join(out["commands"])
    out["problems"] = list(dict.fromkeys(p for d in docs for p in d["problems"]))
    out["graphs"], out["rows"], out["skipped"] = {}, [], []
    for d in docs:
        for name, g in d["graphs"].items():
            out["graphs"].setdefault(name, g)
        out["rows"] += d["rows"]
        out["skipped"] += [s for s in d["skipped"] if s not in out["skipped"]]
    out["complete"] = all(d.get("complete", False) for d in docs)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m concomp.bench.merge OUT.json PART.json ... [--commit SHA]``."""
    p = argparse.ArgumentParser(prog="python -m concomp.bench.merge", description=__doc__)
    p.add_argument("out", type=Path, help="merged result file to write")
    p.add_argument("parts", type=Path, nargs="+", help="result files of one run")
    p.add_argument("--commit", help="the commit the parts' source tree was committed as")
    args = p.parse_args(argv)
    try:
        docs = [json.loads(f.read_text(encoding="utf-8")) for f in args.parts]
        write(merge(docs, args.commit), args.out)
    except (ValueError, OSError, KeyError) as exc:
        print(f"concomp.bench.merge: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
