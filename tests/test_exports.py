"""--export pdf,docx: report.pdf (WeasyPrint) and report.docx (python-docx) beside report.html,
from the same rendered report, read back with pdftotext and python-docx; refused at preflight
(exit 2, nothing written) when the [export] extra is missing; a request field of the service,
whose files are offered for download."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from research.core.options import OPTION

docx = pytest.importorskip("docx")
pytest.importorskip("weasyprint")
PDFTOTEXT = shutil.which("pdftotext")
NAME = "solar"


def research(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "research", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env or dict(os.environ),
        stdin=subprocess.DEVNULL,
    )


def exported(isolated: Path) -> Path:
    done = research(
        *("--mock-mode", "--verify-sources", "--yes", "--name", NAME),
        *("--breadth", "2", "--depth", "2", "--export", "docx, PDF", "solar panels on roofs"),
    )
    assert done.returncode == 0, done.stderr
    summary = " ".join(done.stdout.split())  # the end-of-run summary names the files
    assert f"reports/{NAME}/report.pdf" in summary and f"reports/{NAME}/report.docx" in summary
    return isolated / "reports" / NAME


def docx_text(path: Path) -> str:
    document = docx.Document(str(path))
    lines = [p.text for p in document.paragraphs]
    for table in document.tables:
        lines += [cell.text for row in table.rows for cell in row.cells]
    return "\n".join(lines)


def plan_topics(isolated: Path) -> list[str]:
    import json

    state = json.loads((isolated / ".research" / NAME / "state.json").read_text())
    return [topic["name"] for topic in state["plan"]["topics"]]


@pytest.mark.skipif(PDFTOTEXT is None, reason="no pdftotext (poppler-utils)")
def test_pdf_and_docx_carry_the_marks_the_appendix_and_the_tree(isolated: Path) -> None:
    folder = exported(isolated)
    assert {p.name for p in folder.iterdir()} >= {"report.md", "report.html", "report.pdf"}
    report = (folder / "report.md").read_text()
    assert "\u2020" in report, "the run needs a sentence marked † for this test"
    assert OPTION["export"].request_field == "export"
    pdf = subprocess.run(
        [str(PDFTOTEXT), "-layout", str(folder / "report.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    word = docx_text(folder / "report.docx")
    for text in (pdf, word):
        squashed = " ".join(text.split())
        assert "\u2020" in text  # the marks
        assert "Methodology" in text and "Sentences that could not be verified" in text
        assert "Topic tree" in text
        for topic in plan_topics(isolated):  # the tree: every topic, whatever its status
            head = " ".join(topic.split())[:28]
            assert head in squashed, (head, squashed[-2000:])
        assert "[1]" in text  # the citations as their numbers
        assert "not checked yet" not in text  # the popovers are the page's, not the paper's


def test_without_the_extra_export_fails_at_preflight_and_writes_nothing(
    isolated: Path, tmp_path: Path
) -> None:
    hidden = tmp_path / "no-weasyprint"
    (hidden / "weasyprint").mkdir(parents=True)
    (hidden / "weasyprint" / "__init__.py").write_text(
        "raise ImportError('No module named weasyprint')\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{hidden}{os.pathsep}{os.environ['PYTHONPATH']}"}
    done = research("--mock-mode", "--yes", "--export", "pdf", "solar panels", env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'research-py[export]'" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(os.listdir(isolated)) == []


def test_an_unknown_format_is_refused(isolated: Path) -> None:
    done = research("--mock-mode", "--yes", "--export", "pdf,xls", "solar panels")
    assert done.returncode == 2
    assert "'xls' is not an export format" in done.stderr
    assert sorted(os.listdir(isolated)) == []


@pytest.mark.anyio
async def test_the_service_writes_and_offers_the_exports(isolated: Path, tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from test_service_api import Api, error_of

    api = Api(isolated, tmp_path / "gate")
    async with api.client:
        body = {"task": "solar panels", "name": NAME, "agent": "mock", "breadth": 1, "depth": 1}
        plain = await api.client.post("/run", json={**body, "name": "plain"})
        assert plain.status_code == 200, plain.text
        missing = await api.client.get("/runs/plain/report?format=pdf")
        assert "report.pdf" in error_of(missing, 404, "report_not_ready")["message"]
        done = await api.client.post("/run", json={**body, "export": "pdf,docx"})
        assert done.status_code == 200, done.text
        detail = (await api.client.get(f"/runs/{NAME}")).json()
        assert detail["exports"] == ["pdf", "docx"]
        pdf = await api.client.get(f"/runs/{NAME}/report?format=pdf")
        assert pdf.headers["content-type"] == "application/pdf" and pdf.content[:5] == b"%PDF-"
        assert "attachment" in pdf.headers["content-disposition"]
        word = await api.client.get(f"/runs/{NAME}/report?format=docx")
        assert word.content[:2] == b"PK" and "wordprocessingml" in word.headers["content-type"]
        assert word.content == (isolated / "reports" / NAME / "report.docx").read_bytes()
        health = (await api.client.get("/healthz")).json()
        assert health["exports"] == ["pdf", "docx"]
        bad = await api.client.post("/run", json={**body, "name": "bad", "export": "xls"})
        error_of(bad, 422, "validation_error")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
