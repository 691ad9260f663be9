#!/usr/bin/env python3
"""The HTML extractor (research/sources/extract.py): CPU time per page, and what its tree
corrections (research/sources/content_tree.py: content lists, linked paragraphs, figures,
callouts, heading permalinks, preformatted lines) cost of it.

    python bench/extract.py                    # the pages below, median of --repeat runs
    python bench/extract.py --repo OTHER_CHECKOUT  # the same with another checkout's extractor
    python bench/extract.py --json PATH        # also write every figure as JSON

Pages: the HTML fixtures of tests/fixtures/pages, and generated README-like pages (a
heading with a permalink icon as GitHub renders it, paragraphs, a list nested three levels
with links in every item, a <pre> inside a blockquote, a figure with a caption, a table)
repeated to about 20 KB, 200 KB and 1.9 MB (just under
MAX_MAIN_BYTES, the largest page that takes the main-content pass). Nothing is fetched.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PAGES = REPO / "tests" / "fixtures" / "pages"

SECTION = """<div class="markdown-heading"><h2>Release {n}</h2><a class="anchor"
href="#release-{n}"><svg viewBox="0 0 16 16"><path d="M1 1"></path></svg></a></div>
<p>Release {n} parses YAML at about {n}50 MB/s on Linux and {n}00 MB/s on Windows, measured on
a desktop CPU at 3.4 GHz with the default build options; see the notes for details.</p>
<ul>
<li>compared against the other libraries:
<ul>
<li>between 2 and 3 times faster than <a href="/libfoo/{n}">libfoo</a></li>
<li>between 10 and 70 times faster than <a href="/foo-cpp/{n}">foo-cpp</a>, and in some
cases <a href="/issue/{n}">even 200x</a>.</li>
</ul>
</li>
<li>Package managers:
<ul>
<li><a href="/conan/{n}">conan</a></li>
<li><a href="/vcpkg/{n}">vcpkg</a>: <code>vcpkg install foo</code></li>
<li>Linux distributions:
<ul><li><a href="/arch/{n}">Arch</a></li><li><a href="/fedora/{n}">Fedora</a></li></ul>
</li>
</ul>
</li>
</ul>
<blockquote><pre>
cycles   function
<font color="red">1,{n}04,551</font>   parse_block
  412,{n}00   <b>emit_node</b>
</pre></blockquote>
<figure><img src="/chart/{n}.png" alt="chart"><figcaption>Figure {n}: throughput of
<a href="/r/{n}">release {n}</a> against <a href="/p/{n}">the previous one</a>.
</figcaption></figure>
<table><tr><th>input</th><th>MB/s</th></tr><tr><td>file {n}</td><td>{n}13.9</td></tr></table>
"""


def readme_page(size: int) -> bytes:
    sections: list[str] = []
    total = 0
    while total < size:
        sections.append(SECTION.format(n=len(sections) + 1))
        total += len(sections[-1])
    return (
        "<html><head><title>foo</title></head><body><article><h1>foo</h1>"
        + "".join(sections)
        + "</article></body></html>"
    ).encode()


def pages() -> dict[str, bytes]:
    found = {path.name: path.read_bytes() for path in sorted(PAGES.glob("*.html"))}
    for label, size in (("readme 20 KB", 20_000), ("readme 200 KB", 200_000)):
        found[label] = readme_page(size)
    found["readme 1.9 MB"] = readme_page(1_900_000)
    return found


def timed(call: Any, repeat: int, setup: Any = None) -> float:
    """The median CPU time of `repeat` calls, in ms (CPU, not wall: the machine is shared).
    `setup` (untimed) makes each call's argument."""
    times = []
    for _ in range(repeat):
        argument = setup() if setup is not None else None
        start = time.process_time()
        call() if setup is None else call(argument)
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def _two_corrections(module: Any) -> Any:
    def correct(tree: Any) -> None:
        module.keep_content_lists(tree)
        module.keep_preformatted_lines(tree)

    return correct


def measure(repeat: int) -> dict[str, dict[str, float]]:
    import trafilatura

    from research.sources import extract as module

    try:
        from research.sources.content_tree import correct_tree as corrections
    except ImportError:  # a checkout from before content_tree.py
        corrections = getattr(module, "keep_content_lists", None) and _two_corrections(module)
    results: dict[str, dict[str, float]] = {}
    for label, body in pages().items():
        module.extract(body, "text/html")  # imports and caches out of the timing
        row = {
            "kb": round(len(body) / 1000, 1),
            "extract_ms": timed(lambda b=body: module.extract(b, "text/html"), repeat),
        }
        if corrections is not None:
            markup = body.decode("utf-8", "replace")
            row["corrections_ms"] = timed(
                corrections, repeat, setup=lambda text=markup: trafilatura.load_html(text)
            )
        results[label] = {k: round(v, 2) for k, v in row.items()}
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to measure")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(args.repo.resolve()))
    sys.path.insert(1, str(Path(__file__).resolve().parent))
    from machine import machine

    from research.sources import extract as module

    results = measure(args.repeat)
    print(f"extractor {module.__file__}, median CPU time of {args.repeat} runs")
    for label, row in results.items():
        extra = f", corrections {row['corrections_ms']:.2f} ms" if "corrections_ms" in row else ""
        print(f"{label:>16}  {row['kb']:>7.1f} KB  extract {row['extract_ms']:>8.2f} ms{extra}")
    if args.json is not None:
        args.json.write_text(json.dumps({"machine": machine(), "pages": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
