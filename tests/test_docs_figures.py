"""Measured figures live in one table, the README's; the other documents link to it.

A figure written in two places drifts: a benchmark is re-run, one copy is updated and the
other is not. So every benchmark a document names must have its row in the README's
"Measured" table, the document must link to that table, and a paragraph that names the
benchmark without pointing to the table must not quote a figure of its own (one that does
point there may still state a setting, a goal or a chip's figure from elsewhere).
"""

import re

from conftest import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "hardware").glob("*.md"))
BENCH = re.compile(r"bench/(\w+)\.py")
# a quantity as benchmarks print them: 226 µs, 0.91 ms, 82.8 KB, 2.2 MB/s, 699 games/s, 0.27x
FIGURE = re.compile(r"\d(?:[\d.,–-]*\d)? ?(?:µs|us|ns|ms|s|KB|KiB|MB|MB/s|games/s|M)\b|\d\.\d+x\b")


def measured_table():
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## Measured\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def paragraphs(text):
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def test_every_benchmark_has_its_row_in_the_readme_and_is_run_by_make_bench():
    table = measured_table()
    run_all = (ROOT / "bench" / "run_all.py").read_text()
    scripts = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if p.stem != "run_all")
    assert len(scripts) > 10
    missing = [s for s in scripts if "bench/%s.py" % s not in table]
    assert not missing, "benchmarks with no row in the README's Measured table: %s" % missing
    unrun = [s for s in scripts if '"%s.py"' % s not in run_all]
    assert not unrun, "benchmarks make bench does not run: %s" % unrun


def test_documents_link_to_the_readmes_figures_instead_of_copying_them():
    table = measured_table()
    problems = []
    for doc in DOCS:
        text = doc.read_text()
        named = set(BENCH.findall(text))
        if named and "README.md#measured" not in text:
            problems.append("%s names %s but does not link to README.md#measured" % (doc.name, sorted(named)))
        for script in named:
            if "bench/%s.py" % script not in table:
                problems.append("%s names bench/%s.py, which has no row in the README" % (doc.name, script))
        for para in paragraphs(text):
            bench = BENCH.search(para)
            if bench and "README.md#measured" not in para and FIGURE.findall(para):
                problems.append("%s quotes %s beside %s" % (doc.name, FIGURE.findall(para), bench.group(0)))
    assert not problems, "\n".join(problems)


def test_the_check_sees_a_copied_figure():
    """The figure pattern catches what benchmarks print, so the test above can fail."""
    assert FIGURE.findall("median 226 µs, 0.91 ms, 82.8 KB in use, 2.2 MB/s, 699 games/s, 0.27x")
    assert len(FIGURE.findall("median 226 µs, 0.91 ms, 82.8 KB in use, 2.2 MB/s, 699 games/s, 0.27x")) == 6
    assert not FIGURE.findall("box 2, contest 3, pins GP17 and GP20")
