#!/usr/bin/env python3
"""docs/requirements.md: every requirement id, one line, and where it lives.

    scripts/requirements.py           writes docs/requirements.md
    scripts/requirements.py --check   fails when docs/requirements.md is stale, when an id has
                                      no test, or when the code names an id that does not exist

The ids and their lines are docs/requirements.ids (our words; the specification itself lives
outside the repository). Where an id lives is found by looking for it in the files git tracks:
the code under src/, the tests (unit, integration, the MCP end-to-end test, fuzzers), the
benchmarks and package checks, and the docs. A test is named by its GoogleTest name when the id
is written in or just above a TEST().
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDS_FILE = "docs/requirements.ids"
OUT_FILE = "docs/requirements.md"
ID_RE = re.compile(r"(?<![A-Za-z0-9-])([A-Z]{2,6}-[0-9]{1,2})(?![0-9])")
TEST_RE = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P)\(\s*(\w+)\s*,\s*(\w+)\s*\)")
OPEN_RE = re.compile(r"^\[open: ([^\]]+)\]\s*")
MAX_CELL = 6

SECTIONS = [  # (prefix, title), in the specification's order
    ("CFG", "Configuration"), ("MODE", "Modes"), ("PROBE", "Probe"), ("FS", "Filesystem"),
    ("PROT", "Protected paths"), ("GIT", "Git"), ("NET", "Network"), ("ENV", "Environment"),
    ("PROC", "Processes"), ("SES", "Sessions"), ("RES", "Results"), ("FILE", "File tools"),
    ("REV", "Review"), ("APR", "Approvals"), ("CMD", "Command policy"), ("MAC", "macOS"),
    ("WSL", "WSL"), ("BUD", "Budgets"), ("SRV", "Servers"), ("PKG", "Package caches"),
    ("DIST", "Distribution"), ("PERF", "Performance"), ("JOB", "Jobs and terminals"),
    ("GPU", "GPUs"), ("AUD", "Audit and violations"),
]


def read_ids():
    ids = {}
    with open(os.path.join(ROOT, IDS_FILE), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            rid, _, text = line.partition(" ")
            if not ID_RE.fullmatch(rid) or not text:
                sys.exit(f"{IDS_FILE}:{n}: expected `ID text`, got {line!r}")
            m = OPEN_RE.match(text)
            ids[rid] = {"text": OPEN_RE.sub("", text), "open": m.group(1) if m else None}
    return ids


def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    return [p for p in out.splitlines() if p != OUT_FILE and p != IDS_FILE]


def kind_of(path):
    if path.startswith("tests/unit/"):
        return "unit"
    if path.startswith(("tests/integration/", "tests/mcp/", "tests/fuzz/")) or \
            path == "scripts/mcp_e2e.sh":
        return "integration"
    if path.startswith("bench/") or re.match(r"scripts/(check_|bench)", path):
        return "bench"
    if path.startswith("src/"):
        return "code"
    if path.startswith("docs/") or path == "README.md":
        return "doc"
    return None


def test_name_for(lines, i):
    """The GoogleTest a mention on line i belongs to: the TEST() it sits in, or the one its
    comment introduces."""
    for j in range(i, min(len(lines), i + 12)):
        stripped = lines[j].strip()
        m = TEST_RE.match(lines[j])
        if m:
            return f"{m.group(1)}.{m.group(2)}"
        if j > i and stripped and not stripped.startswith("//"):
            break
    for j in range(i, -1, -1):
        m = TEST_RE.match(lines[j])
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def find_places(ids):
    places = {rid: {"code": set(), "unit": set(), "integration": set(), "bench": set(),
                    "doc": set()} for rid in ids}
    unknown = {}
    for path in tracked_files():
        kind = kind_of(path)
        if kind is None:
            continue
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for i, line in enumerate(lines):
            for rid in ID_RE.findall(line):
                if rid not in ids:
                    if kind != "doc" and rid.split("-")[0] in dict(SECTIONS):
                        unknown.setdefault(rid, f"{path}:{i + 1}")
                    continue
                name = path
                if kind in ("unit", "integration") and path.endswith(".cc"):
                    name = test_name_for(lines, i) or path
                places[rid][kind].add(name)
    return places, unknown


def cell(items):
    items = sorted(items)
    shown = ", ".join(f"`{x}`" for x in items[:MAX_CELL])
    if len(items) > MAX_CELL:
        shown += f" and {len(items) - MAX_CELL} more"
    return shown or "—"


def render(ids, places):
    out = ["# Requirements: where each one lives", "",
           "Generated by `scripts/requirements.py` from `docs/requirements.ids` (the lines, in our",
           "words) and the files that name each id; `make test` fails when it is stale or when an",
           "id has no test. Regenerate with `make requirements`.", "",
           "Columns: the code that implements the id (src/), its unit tests (pure, no root), its",
           "integration tests (real sandboxes, the MCP end-to-end test, fuzzers), benchmarks and",
           "package checks, and the docs that explain it.", ""]
    for prefix, title in SECTIONS:
        rows = [rid for rid in ids if rid.split("-")[0] == prefix]
        if not rows:
            continue
        out += [f"## {title}", "", "| Id | What | Code | Unit tests | Integration tests | "
                "Benchmarks, checks | Docs |", "|---|---|---|---|---|---|---|"]
        for rid in rows:
            p, text = places[rid], ids[rid]["text"]
            if ids[rid]["open"]:
                text = f"**Not built yet ({ids[rid]['open']}).** {text}"
            out.append(f"| {rid} | {text} | {cell(p['code'])} | {cell(p['unit'])} | "
                       f"{cell(p['integration'])} | {cell(p['bench'])} | {cell(p['doc'])} |")
        out.append("")
    return "\n".join(out)


def main():
    check = "--check" in sys.argv[1:]
    ids = read_ids()
    places, unknown = find_places(ids)
    text = render(ids, places)
    problems = []
    for rid, where in sorted(unknown.items()):
        problems.append(f"{where} names {rid}, which is not in {IDS_FILE}: a typo, or add it there")
    for rid, info in ids.items():
        tested = places[rid]["unit"] or places[rid]["integration"] or places[rid]["bench"]
        if not tested and not info["open"]:
            problems.append(f"{rid} has no test: cite it in the test that checks it, or mark it "
                            f"`[open: issue N]` in {IDS_FILE}")
    out_path = os.path.join(ROOT, OUT_FILE)
    if check:
        current = open(out_path, encoding="utf-8").read() if os.path.exists(out_path) else ""
        if current != text:
            problems.append(f"{OUT_FILE} is stale: run `make requirements` (or "
                            f"scripts/requirements.py) and commit it")
    else:
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(text)
    for p in problems:
        print(f"requirements: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
