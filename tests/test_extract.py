"""Extraction of readable text: HTML main content (with a whole-page fallback), PDF, plain
text and Markdown; anything else is not text."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from research.sources.extract import MAX_MAIN_BYTES, Extracted, extract, kind_of

PAGES = Path(__file__).parent / "fixtures" / "pages"
PARAGRAPH = (
    "<p>Field trials in 42 homes across Canada and Norway found that cold-climate heat pumps "
    "kept a seasonal COP of 2.7 through the winter, with resistance backup in four homes.</p>"
)
PARAGRAPH_2 = (
    "<p>The authors caution that installation quality varied widely, and that undersized "
    "units explain most of the backup hours recorded during the coldest weeks.</p>"
)


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A minimal valid PDF: each page draws its lines in Helvetica (no external tools)."""

    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    n = len(pages)
    font = 3 + 2 * n
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{3 + 2 * i} 0 R".encode() for i in range(n))
        + f"] /Count {n} >>".encode(),
    ]
    for i, lines in enumerate(pages):
        ops = ["BT", "/F1 12 Tf", "72 720 Td"]
        for j, line in enumerate(lines):
            ops += ([] if j == 0 else ["0 -16 Td"]) + [f"({escape(line)}) Tj"]
        stream = "\n".join([*ops, "ET"]).encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    if title is not None:
        objects.append(f"<< /Title ({escape(title)}) >>".encode("latin-1"))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    info = f" /Info {len(objects)} 0 R" if title is not None else ""
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{info} >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def html_text(content: str, *, around: str = "article", after: str = "") -> str:
    """The text extracted from a page whose body is `content` in an <`around`>, then `after`."""
    body = f"<html><body><{around}>{content}</{around}>{after}</body></html>"
    found = extract(body.encode(), "text/html")
    assert found is not None
    return found.text


def test_html_article_main_text_title_and_table_figures() -> None:
    found = extract((PAGES / "article.html").read_bytes(), "text/html; charset=utf-8")
    assert found is not None
    assert found.title == "Cold-climate heat pumps: field results | Example Energy News"
    assert "seasonal coefficient of performance (COP) of 2.7" in found.text
    assert "38 of the 42 homes" in found.text
    assert "-25 °C" in found.text and "1.9" in found.text  # the table is kept
    assert "tracking" not in found.text and "font-family" not in found.text
    assert "Subscribe" not in found.text and "Cookie settings" not in found.text  # boilerplate


def test_html_nested_list_items_with_links_are_kept() -> None:
    """trafilatura drops short link-dense lists as navigation: a nested list of a README
    (prose with links, or links under an item of its own like "Package managers:") is
    content, and a claim citing it must find it."""
    found = extract((PAGES / "nested_lists.html").read_bytes(), "text/html; charset=utf-8")
    assert found is not None
    for line in (
        "- quickyaml is in general between 2 and 3 times faster than libfoo",
        "- quickyaml is in general between 10 and 70 times faster than foo-cpp, and in some "
        "cases as much as 100x and even 200x faster.",
        "- Package managers:\n- conan\n- vcpkg: vcpkg install quickyaml\n- PyPI",
        "- Arch Linux:\n- quickyaml (aarch64)\n- quickyaml-git (AUR)",
        "- Fedora Linux: dnf install quickyaml-devel",
    ):
        assert line in found.text
    assert "Widgets" not in found.text and "Cookie settings" not in found.text


def test_html_prose_list_with_links_at_the_end_of_the_content_is_kept() -> None:
    prose = (
        "<ul><li>quickyaml is between 2 and 3 times faster than <a href='/a'>libfoo</a></li>"
        "<li>and between 10 and 70 times faster than <a href='/b'>foo-cpp</a>, in some cases "
        "<a href='/c'>even 200x</a>.</li></ul>"
    )
    text = html_text(f"{PARAGRAPH}{PARAGRAPH_2}{prose}")
    assert "- quickyaml is between 2 and 3 times faster than libfoo" in text
    assert "- and between 10 and 70 times faster than foo-cpp, in some cases even 200x." in (text)


def test_html_a_list_of_links_a_paragraph_introduces_is_kept() -> None:
    """A README's "Bindings:" over a list of links (trafilatura drops it as navigation)."""
    bindings = (
        "<p>Bindings for other languages:</p>\n<ul><li><a href='/py'>quickyaml-python</a></li>"
        "<li><a href='/rs'>quickyaml-rs</a></li><li><a href='/go'>go-quickyaml</a></li></ul>"
    )
    share = (
        "<p>Share this:</p><ul class='share-buttons'><li><a href='/tw'>Twitter</a></li>"
        "<li><a href='/fb'>Facebook</a></li></ul>"
    )
    text = html_text(f"{PARAGRAPH}{bindings}{PARAGRAPH_2}{share}")
    assert "- quickyaml-python\n- quickyaml-rs\n- go-quickyaml" in text, text
    assert "Twitter" not in text and "Facebook" not in text


def test_html_link_only_menus_and_link_lists_stay_out() -> None:
    menu = (
        "<ul><li><a href='/p'>Products</a><ul><li><a href='/w'>Widgets</a></li>"
        "<li><a href='/g'>Gadgets</a></li></ul></li><li><a href='/s'>Support</a><ul>"
        "<li><a href='/f'>Forum</a></li><li><a href='/t'>Tickets</a></li></ul></li></ul>"
    )
    related = (
        "<h3>Related</h3><ul><li><a href='/a'>Heat pumps explained</a></li>"
        "<li><a href='/b'>Solar in winter</a></li><li><a href='/c'>Grid storage</a></li></ul>"
    )
    text = html_text(f"{menu}{PARAGRAPH}{PARAGRAPH_2}{related}", around="div")
    assert "seasonal COP of 2.7" in text
    for boilerplate in ("Products", "Widgets", "Forum", "Heat pumps explained", "Grid storage"):
        assert boilerplate not in text


def test_html_readme_headings_beside_their_permalinks_are_kept() -> None:
    """GitHub renders each heading of a README in a block with an icon-only permalink:
    trafilatura dropped the block as a link farm, and with it every heading."""
    found = extract((PAGES / "github_readme.html").read_bytes(), "text/html; charset=utf-8")
    assert found is not None
    assert found.text.startswith(  # the page's title first: the text lacks it
        "GitHub - example/quickyaml: A fast YAML parser and emitter\n\n"
        "quickyaml\nquickyaml is a C++ library"
    )
    for line in ("Performance\nOn the bundled", "Installation\ncmake -S .", "Note\nVersion 0.9"):
        assert line in found.text
    for boilerplate in ("Pricing", "Releases", "Stars", "Footer", "Manage cookies", "Copy"):
        assert boilerplate not in found.text


@pytest.mark.parametrize(
    "heading",
    [
        "<h2 id='r'>Results<a href='#r' class='hash-link' aria-label='Direct link'>\u200b</a></h2>",
        "<h2 id='r'><a href='#r' class='anchor'>#</a> Results</h2>",
        "<h2 id='r'>Results<a class='headerlink' href='#r'>¶</a></h2>",
        "<div><h2 id='r'><a href='#r'>Results</a></h2></div>",
    ],
)
def test_html_headings_lose_their_permalinks_not_their_text(heading: str) -> None:
    text = html_text(f"{PARAGRAPH}{heading}{PARAGRAPH_2}")
    assert "four homes.\nResults\nThe authors" in text, text


def test_html_short_paragraphs_with_a_few_links_are_kept_link_lines_are_not() -> None:
    """trafilatura drops a short paragraph whose links are mostly short words, as the
    last of its block or alone in one: a claim citing the benchmark line must find it."""
    benchmarks = (
        "<p>Benchmarks: <a href='/rg'>ripgrep</a> is 5x faster than <a href='/g'>grep</a> "
        "and <a href='/ag'>ag</a>.</p>"
    )
    boilerplate = (
        "<p>Tags: <a href='/t/rust'>rust</a>, <a href='/t/perf'>perf</a></p>"
        "<p>Share: <a href='/tw'>Twitter</a> <a href='/fb'>Facebook</a></p>"
        "<p>Posted in <a href='/c/n'>News</a>, <a href='/c/r'>Releases</a></p>"
        "<p><a href='/p'>« Previous post</a> | <a href='/n'>Next post »</a></p>"
    )
    see = "<p>See <a href='/703'>PEP 703</a> and <a href='/684'>PEP 684</a>.</p>"
    for content in (
        f"{PARAGRAPH}{see}{PARAGRAPH_2}{benchmarks}{boilerplate}",
        f"{PARAGRAPH}<div>{benchmarks}</div>{PARAGRAPH_2}{see}",
    ):
        found = extract(f"<html><body><article>{content}</article></body></html>".encode(), "")
        assert found is not None
        assert "Benchmarks: ripgrep is 5x faster than grep and ag." in found.text
        assert "See PEP 703 and PEP 684." in found.text
        for word in ("Tags", "rust", "Twitter", "Posted in", "Releases", "Previous", "Next"):
            assert word not in found.text


@pytest.mark.parametrize(
    ("figure", "lines"),
    [
        (
            "<figure class='highlight'><pre><code class='language-sh'>$ hyperfine 'rg foo'\n"
            "  Time (mean): 12.3 ms</code></pre></figure>",
            ["$ hyperfine 'rg foo'\nTime (mean): 12.3 ms"],
        ),
        (
            "<figure><blockquote><p>Simple things should be simple.</p></blockquote>"
            "<figcaption>Alan Kay, 1998</figcaption></figure>",
            ["Simple things should be simple.", "Alan Kay, 1998"],
        ),
        (
            "<figure><img src='a.png' alt='chart'><figcaption>Figure 2: throughput rose 40% "
            "after the <a href='/c'>change</a>.</figcaption></figure>",
            ["Figure 2: throughput rose 40% after the change."],
        ),
        (
            "<figure><table><tr><th>n</th><th>ms</th></tr><tr><td>10</td><td>4.5</td></tr>"
            "</table><figcaption>Table 3: timings</figcaption></figure>",
            ["| 10 | 4.5 |", "Table 3: timings"],
        ),
    ],
)
def test_html_figures_keep_their_text_and_captions(figure: str, lines: list[str]) -> None:
    text = html_text(f"{PARAGRAPH}{figure}{PARAGRAPH_2}")
    for line in lines:
        assert line in text, text


def test_html_callout_asides_are_kept_sidebars_are_not() -> None:
    callouts = (
        "<aside aria-label='Caution' class='starlight-aside starlight-aside--caution'>"
        "<p class='starlight-aside__title'>Caution</p><div class='starlight-aside__content'>"
        "<p>Deleting the cache loses 2 GB of builds.</p></div></aside>"
        "<aside class='note'><p><strong>Note:</strong> the limit is 64 MiB per request.</p>"
        "</aside>"
    )
    sidebars = (
        "<aside class='sidebar'><h3>Recent posts</h3><p>Our team wrote about heat pumps in "
        "the winter of 2021 and the results were good.</p></aside>"
        "<aside class='widget about'><h3>About the author</h3><p>Jane writes about energy "
        "for Example News and lives in Oslo with her two cats.</p></aside>"
    )
    text = html_text(f"{PARAGRAPH}{callouts}{PARAGRAPH_2}{sidebars}", after=sidebars)
    assert "Deleting the cache loses 2 GB of builds." in text
    assert "Note: the limit is 64 MiB per request." in text
    assert "Recent posts" not in text and "Oslo" not in text


def test_html_footnote_marks_leave_the_figures_alone_and_footnotes_are_kept() -> None:
    """A footnote reference glued to a figure changed it ("12%1", "rose 123"); footnotes
    in an <aside> or <footer> of the article were deleted with the page's footer."""
    marks = (
        "<p>Demand rose 12<sup><a href='#fn3'>3</a></sup> percent and prices 40%<sup "
        "class='footnote-ref'><a href='#fn1' id='fnref1'>[1]</a></sup>; Sphinx gives 7.5<a "
        "class='footnote-reference brackets' href='#id4'>2</a> ms, pandoc 9<a href='#fn2' "
        "class='footnote-ref' role='doc-noteref'><sup>2</sup></a> ms, Wikipedia 8,336,817<sup "
        "class='reference'><a href='#cite_note-3'><span>[</span>3<span>]</span></a></sup>.</p>"
    )
    notes = (
        "<aside class='footnotes'><ol><li id='fn1'>Measured on 3 machines in 2021.</li></ol>"
        "</aside><footer role='doc-endnotes'><ol><li id='fn2'>Median of 5 runs.</li></ol>"
        "</footer>"
    )
    footer = "<footer><p>© 2024 Example Energy News. Cookie settings.</p></footer>"
    text = html_text(f"{PARAGRAPH}{marks}{PARAGRAPH_2}{notes}", after=footer)
    assert (
        "Demand rose 12 percent and prices 40%; Sphinx gives 7.5 ms, pandoc 9 ms, Wikipedia "
        "8,336,817." in text
    ), text
    assert "Measured on 3 machines in 2021." in text and "Median of 5 runs." in text
    assert "Cookie" not in text


def test_html_exponents_are_not_glued_to_their_base() -> None:
    text = html_text(
        f"{PARAGRAPH}<p>Emissions fell by 10<sup>6</sup> tonnes, or 3.2×10<sup>−3</sup> of the "
        f"total, on the 1<sup>st</sup> of May.</p>{PARAGRAPH_2}"
    )
    assert "fell by 10^6 tonnes, or 3.2×10^−3 of the total, on the 1st of May." in text


def test_html_captions_and_short_blocks_with_a_few_links_are_kept() -> None:
    """trafilatura deletes what is classed as a caption (with the images it drops), and a
    <div> of text whose links are short words like a short paragraph."""
    blocks = (
        "<div class='wp-caption'><img src='c.png'><p class='wp-caption-text'>Figure 3: the "
        "COP fell to 1.9 at -25 °C.</p></div>"
        "<div><a href='/a'>Ann</a> and <a href='/b'>Bo</a> wrote 3 papers.</div>"
    )
    text = html_text(f"{PARAGRAPH}{blocks}{PARAGRAPH_2}")
    assert "Figure 3: the COP fell to 1.9 at -25 °C." in text
    assert "Ann and Bo wrote 3 papers." in text


def test_html_title_and_publication_date_come_first_when_the_text_lacks_them() -> None:
    """The heading and dateline sit in the template around the article (trafilatura drops
    bylines): the text starts with the page's title and the date its markup gives."""
    found = extract((PAGES / "blog_post.html").read_bytes(), "text/html; charset=utf-8")
    assert found is not None and found.title == "Toolchain 4.2 is released - The Example Blog"
    assert found.text.startswith(
        "Toolchain 4.2 is released - The Example Blog\nPublished 2023-08-08\n\n"
        "Today the toolchain team released version 4.2"
    )
    assert "2024" not in found.text  # the modification date is not a publication date
    assert "Download" not in found.text and "Cookie" not in found.text


@pytest.mark.parametrize(
    ("head", "body", "published"),
    [
        ("<meta property='article:published_time' content='2023-08-08T09:00:00Z'>", "", True),
        ("<meta itemprop='datePublished' content='2023-08-08'>", "", True),
        ("<meta name='citation_publication_date' content='2023/08/08'>", "", True),
        ("", "<time datetime='2023-08-08' pubdate>8 Aug</time>", True),
        ("", "<p class='byline'>By Ann <span itemprop='datePublished'>2023-08-08</span></p>", True),
        ('<script type="application/ld+json">{"datePublished": "2023-08-08"}</script>', "", True),
        ("<meta property='article:modified_time' content='2023-08-08'>", "", False),
        ("<meta property='article:published_time' content='last Tuesday'>", "", False),
        (  # a list of articles: which date is the page's?
            '<script type="application/ld+json">[{"datePublished": "2023-08-08"}, '
            '{"datePublished": "2023-07-01"}]</script>',
            "",
            False,
        ),
        (  # the text already gives it
            "<meta property='article:published_time' content='2023-08-08'>",
            "<p>Posted on August 8, 2023 by the energy desk.</p>",
            False,
        ),
    ],
)
def test_html_publication_date_only_from_the_markup_and_only_one(
    head: str, body: str, published: bool
) -> None:
    article = f"<article><h1>Heat pumps</h1>{body}{PARAGRAPH}{PARAGRAPH_2}</article>"
    page = f"<html><head><title>Heat pumps</title>{head}</head><body>{article}</body></html>"
    found = extract(page.encode(), "text/html")
    assert found is not None
    assert found.text.startswith("Published 2023-08-08\n\n") is published, found.text
    assert found.text.count("Heat pumps") == 1  # the title is a line of the text already


@pytest.mark.parametrize(
    "wrap",
    [
        "{}",
        "<blockquote>{}</blockquote>",
        "<blockquote><p>Profile:</p>{}</blockquote>",
        "<ul><li>Profile:{}</li></ul>",
        "<dl><dt>Profile</dt><dd>{}</dd></dl>",
        "<div>{}</div>",
    ],
)
@pytest.mark.parametrize("code", [False, True])
def test_html_preformatted_text_keeps_its_lines(wrap: str, code: bool) -> None:
    lines = (
        "cycles   function\n<font color='red'>1,204,551</font>   sqlite3VdbeExec\n"
        "  412,000   <b>sqlite3BtreeNext</b>\n"
    )
    pre = f"<pre><code>{lines}</code></pre>" if code else f"<pre>\n{lines}</pre>"
    text = html_text(f"{PARAGRAPH}{wrap.format(pre)}{PARAGRAPH_2}")
    lines = "cycles function\n1,204,551 sqlite3VdbeExec\n412,000 sqlite3BtreeNext\n"
    assert re.search(rf"(?<!\S){lines}", text), text  # not glued to "Profile:"


def test_html_formulas_without_tex_are_written_out() -> None:
    """trafilatura deletes every <math> it cannot turn into TeX (no annotation, no
    alttext): the sentence lost its figures."""
    formulas = (
        "<p>The speedup is <math><mi>S</mi><mo>=</mo><mn>3.2</mn></math> on 8 cores, and "
        "<math><msup><mn>10</mn><mn>6</mn></msup></math> tonnes were saved; <math "
        "display='block'><mi>E</mi><mo>=</mo><mfrac><mn>1</mn><mn>2</mn></mfrac><mi>m</mi>"
        "<msup><mi>v</mi><mn>2</mn></msup></math></p>"
    )
    text = html_text(f"{PARAGRAPH}{formulas}{PARAGRAPH_2}")
    assert (
        "The speedup is \\(S=3.2\\) on 8 cores, and \\(10^6\\) tonnes were saved; "
        "\\[E=(1)/(2)mv^2\\]" in text
    ), text


def test_html_dates_in_time_elements_are_kept() -> None:
    """trafilatura deletes every <time>: the sentence lost its date."""
    text = html_text(
        "<header><h1>Release notes</h1><time datetime='2023-03-02'>March 2, 2023</time>"
        f"</header>{PARAGRAPH}<p>The release on <time datetime='2023-03-02'>March 2, 2023"
        f"</time> added 12 new checks.</p>{PARAGRAPH_2}"
    )
    assert "The release on March 2, 2023 added 12 new checks." in text
    assert text.startswith("Release notes\nMarch 2, 2023\n"), text


def test_html_code_blocks_in_a_toolbar_wrapper_are_kept() -> None:
    """Prism's toolbar plugin wraps every code block in div.code-toolbar: trafilatura
    deleted it for the "bar" in its class (a nav bar's), and the button stays out."""
    code = (
        "<div class='code-toolbar'><pre class='language-sh'><code>$ make -j8\nbuilt in 42 s"
        "</code></pre><div class='toolbar'><div class='toolbar-item'><button>Copy</button>"
        "</div></div></div>"
    )
    text = html_text(f"{PARAGRAPH}{code}{PARAGRAPH_2}")
    assert "$ make -j8\nbuilt in 42 s" in text and "Copy" not in text


def test_html_without_main_content_falls_back_to_the_visible_text() -> None:
    found = extract((PAGES / "figures.html").read_bytes(), "text/html")
    assert found is not None
    assert found.title == "Installed capacity dashboard"
    for figure in ("1,204,551", "61.5%", "2.9", "412,000", "2019"):
        assert figure in found.text
    assert "2019 | 412,000" in found.text  # table cells stay apart
    assert "999,999" not in found.text  # comments are not visible


def test_a_very_large_html_page_keeps_its_visible_text() -> None:
    rows = "".join(f"<tr><td>row {n}</td><td>{n * 7}</td></tr>" for n in range(60_000))
    body = f"<html><head><title>Big table</title></head><body><table>{rows}</table></body></html>"
    assert len(body) > MAX_MAIN_BYTES
    found = extract(body.encode(), "text/html")
    assert found is not None and found.title == "Big table"
    assert "row 0 | 0" in found.text and "row 59999 | 419993" in found.text


def test_the_visible_text_keeps_figures_apart_from_marks_exponents_and_formulas() -> None:
    """The whole-page text (here: a page too large for the main-content pass) has the same
    footnote marks, exponents and formulas as the main content, glued to no figure."""
    cells = (
        "<div>Target <span>10<sup>6</sup></span> units</div><div>Heat share 40%<sup><a "
        "href='#n1'>1</a></sup></div><div>Ratio <math><mfrac><mn>1</mn><mn>2</mn></mfrac>"
        "</math>, <math alttext='x^2'><msup><mi>x</mi><mn>2</mn></msup></math></div>"
    )
    padding = "<!--" + "x" * MAX_MAIN_BYTES + "-->"
    body = f"<html><head><title>Dashboard</title></head><body>{cells}{padding}</body></html>"
    found = extract(body.encode(), "text/html")
    assert found is not None
    lines = ["Dashboard", "Target 10^6 units", "Heat share 40%", "Ratio (1)/(2) , x^2"]
    assert found.text == "\n\n".join(lines)


def test_html_nested_deeper_than_the_parser_goes_keeps_its_text() -> None:
    body = (
        "<html><body>" + "<div>" * 3000 + "Deep figure: 7.5%" + "</div>" * 3000 + "</body></html>"
    )
    found = extract(body.encode(), "text/html")
    assert found is not None and found.text == "Deep figure: 7.5%"


@pytest.mark.parametrize(
    "content_type", ["text/html; charset=windows-1252", "text/html", "text/html; charset=bogus"]
)
def test_html_charsets_declared_or_guessed(content_type: str) -> None:
    found = extract((PAGES / "latin1.html").read_bytes(), content_type)
    assert found is not None
    assert found.title == "Café prices"
    assert "café crème costs 3,50 €" in found.text


def test_html_meta_charset_and_xml_declaration() -> None:
    body = (
        '<?xml version="1.0" encoding="iso-8859-1"?>\n<html><head>'
        '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
        "<title>Straße</title></head><body><p>Die Straße ist 12,5 km lang.</p></body></html>"
    ).encode("iso-8859-1")
    found = extract(body, "application/xhtml+xml")
    assert found == Extracted(title="Straße", text="Straße\n\nDie Straße ist 12,5 km lang.")


def test_html_title_falls_back_to_the_first_heading_or_line() -> None:
    found = extract(b"<html><body><h1>Results</h1><p>COP 3.2</p></body></html>", "text/html")
    assert found is not None and found.title == "Results"
    icon = b"<svg><title>Copy to clipboard</title><path d='M1 1'/></svg>"
    found = extract(b"<html><body>" + icon + b"<h1>Results</h1><p>COP 3.2</p></body></html>", "")
    assert found is not None and found.title == "Results" and "Copy" not in found.text
    found = extract(b"<p>Just a line</p><p>and another</p>", "text/html")
    assert found is not None and found.title == "Just a line"


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"   ",
        b"<html><head><title>T</title></head></html>",
        b"<html><body><script>x=1</script></body></html>",
    ],
)
def test_html_with_nothing_readable_is_none(body: bytes) -> None:
    assert extract(body, "text/html") is None


def test_pdf_text_and_metadata_title() -> None:
    body = make_pdf(
        [["Heat pump field trial", "Seasonal COP 2.7 at -15 C"], ["Page two: 42 homes"]],
        title="Field trial report",
    )
    found = extract(body, "application/pdf")
    assert found is not None
    assert found.title == "Field trial report"
    assert "Seasonal COP 2.7 at -15 C" in found.text and "Page two: 42 homes" in found.text


def test_pdf_without_title_takes_the_first_line_and_is_sniffed() -> None:
    body = make_pdf([["Annual summary 2023", "Installed: 1,204,551 units"]])
    for content_type in ("application/pdf", "application/octet-stream", ""):
        found = extract(body, content_type)
        assert found is not None and found.title == "Annual summary 2023"
        assert "1,204,551" in found.text


@pytest.mark.parametrize("body", [b"%PDF-1.4 garbage", b"%PDF-1.4\n" + b"\0" * 100, make_pdf([[]])])
def test_broken_or_empty_pdf_is_none(body: bytes) -> None:
    assert extract(body, "application/pdf") is None


@pytest.mark.parametrize(
    ("body", "content_type", "text"),
    [
        (b"First line\r\nSecond  line\n", "text/plain", "First line\nSecond line"),
        ("Größe: 3 m²".encode("latin-1"), "text/plain; charset=latin-1", "Größe: 3 m²"),
        (b"caf\xe9 \xff", "text/plain", "café ÿ"),  # not UTF-8: windows-1252
        (b"# Notes\n\n- COP 2.7\n", "text/markdown", "# Notes\n\n- COP 2.7"),
        (b"\xef\xbb\xbfBOM text", "text/plain", "BOM text"),
    ],
)
def test_plain_text_and_markdown_as_is(body: bytes, content_type: str, text: str) -> None:
    found = extract(body, content_type)
    assert found is not None and found.text == text
    assert found.title == text.splitlines()[0]


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 50),
        ("application/json", b'{"a": 1}'),
        ("application/octet-stream", b"\x00\x01\x02 binary"),
        ("", b"just bytes with no type"),
        ("text/plain", b"  \n\t "),
    ],
)
def test_other_types_or_empty_text_are_not_text(content_type: str, body: bytes) -> None:
    assert extract(body, content_type) is None


def test_kind_of() -> None:
    assert kind_of("TEXT/HTML; charset=UTF-8") == "html"
    assert kind_of("application/xhtml+xml") == "html"
    assert kind_of("application/pdf") == "pdf"
    assert kind_of("text/html", b"%PDF-1.7") == "pdf"  # the body's signature wins
    assert kind_of("", b"<!DOCTYPE html><html>") == "html"
    assert kind_of("text/markdown") == "plain"
    assert kind_of("image/png") is None


def test_importing_the_module_does_not_load_the_extractors() -> None:
    code = (
        "import sys, research.sources.extract, research.sources.fetch, research.sources.store\n"
        "heavy = {'trafilatura', 'lxml', 'pypdf'} & {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
