"""What a person sees: the project kernel, papermill as typed, JupyterLab and reports in a browser.

- Every notebook names the project's kernel and language in its metadata, and that kernel is
  the .venv's interpreter (registered by ``make setup``).
- papermill's own command line runs every RC25482 notebook as a user types it (no ``-k``);
  the campaign and seed notebooks are run the same way by test_seed_studies, the exploration
  notebook by test_explore.
- jupytext pairing through a running JupyterLab: the .py edited on disk is what the Lab opens,
  and a notebook saved from the Lab rewrites its .py.
- A real browser (Playwright driving Debian's Chromium, headless) on a JupyterLab started on a
  free loopback port: a paper notebook and the exploration notebook, every cell run, no error,
  a plotly figure drawn (its SVG in the page), a widget changed and the figure with it; and
  the RC25482 report.html with every image and table loaded. Screenshots go to
  ``build/test-artifacts/browser/``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from conftest import free_port, papermill_cli, stop_process, unavailable, wait_for_port

from overhead.notebook import KERNEL_NAME, LANGUAGE_INFO, strip
from overhead.paths import ROOT
from overhead.rc25482 import NOTEBOOKS

pytestmark = [pytest.mark.notebook, pytest.mark.xdist_group("browser")]
BIN = Path(sys.executable).parent
ARTIFACTS = ROOT / "build" / "test-artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
ALL = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
#: Where each notebook is run by papermill's command line.
CLI_RUN_BY = {**{n: "test_lab" for n in NOTEBOOKS}, "explore": "test_explore",
              "campaign": "test_seed_studies", "seed_fsync": "test_seed_studies",
              "seed_startup": "test_seed_studies", "seed_sysbench": "test_seed_studies",
              "containers": "test_seed_studies", "compare": "test_compare"}


def _need_chromium() -> None:
    if not Path(CHROMIUM).exists():
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")


# ---- the kernel and the metadata ----------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_every_notebook_names_the_project_kernel_and_is_stripped(name):
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == KERNEL_NAME
    assert nb["metadata"]["language_info"] == LANGUAGE_INFO
    assert strip(nb) == nb, f"{name}: run make strip (outputs or extra metadata left)"
    assert name in CLI_RUN_BY, f"{name}: no test runs it with papermill's command line"


def test_the_project_kernel_is_this_interpreter():
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    assert Path(spec.argv[0]).resolve() == Path(sys.executable).resolve()
    assert spec.language == "python"
    assert Path(spec.resource_dir).is_relative_to(Path(sys.prefix))  # the .venv's, not the user's


def test_the_cli_tests_named_above_use_papermills_command_line():
    for module in set(CLI_RUN_BY.values()) - {"test_lab"}:
        assert "papermill_cli(" in next((ROOT / "tests").glob(f"*/{module}.py")).read_text(), module


@pytest.fixture(scope="module")
def typed(ibm, ibm_tidy, tmp_path_factory):
    """The RC25482 notebooks run by papermill's command line in order, outputs in one folder."""
    base = tmp_path_factory.mktemp("papermill-cli")
    out = base / "out"
    times = {}
    for name in NOTEBOOKS:
        started = time.monotonic()
        # as the user typed it, plus where to read and write
        extra = {"compare_published": False} if name == "01_table1_compute_memory" else {}
        papermill_cli(f"notebooks/{name}.ipynb", base / f"{name}.ipynb", tidy_dir=ibm_tidy,
                      ibm_data=ibm, out_dir=out, **extra)
        times[name] = time.monotonic() - started
    return base, out, times


def test_papermill_as_typed_runs_every_paper_notebook(typed):
    base, out, _ = typed
    for name in NOTEBOOKS:
        nb = json.loads((base / f"{name}.ipynb").read_text())
        assert nb["metadata"]["papermill"]["parameters"]["out_dir"] == str(out)
        assert nb["metadata"]["kernelspec"]["name"] == KERNEL_NAME
        errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
        assert not errors, name
    assert (out / "report.html").stat().st_size > 10_000
    # compare_published False: Table I without the published columns filled
    import pandas as pd

    assert pd.read_csv(out / "table1.csv")["published_mean"].isna().all()
    # and the report's intro says so for that section alone (read from the tables, not from the
    # report notebook's own compare_published, which is True here)
    assert ("Published values stand beside the reproduced ones in Network, Redis and MySQL; the Compute "
            "and memory notebook ran with compare_published=False") in (out / "report.html").read_text()


def test_papermill_without_a_kernel_in_the_metadata_still_fails_clearly(tmp_path):
    """What the issue saw before: a notebook without kernelspec (not one of ours any more)."""
    nb = json.loads((ROOT / "notebooks" / "explore.ipynb").read_text())
    del nb["metadata"]["kernelspec"]
    (tmp_path / "bare.ipynb").write_text(json.dumps(nb))
    r = subprocess.run([str(BIN / "papermill"), str(tmp_path / "bare.ipynb"), str(tmp_path / "o.ipynb")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "No kernel name found in notebook" in r.stderr


# ---- JupyterLab -------------------------------------------------------------------------------

@dataclass
class Lab:
    root: Path
    port: int
    token: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, path: str, method: str = "GET", body: dict | None = None) -> dict:
        req = urllib.request.Request(f"{self.url}/api/{path}", method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read() or b"{}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a free loopback port, serving a private folder (the test's notebooks)."""
    root = tmp_path_factory.mktemp("lab")
    shutil.copy(ROOT / "notebooks" / "jupytext.toml", root / "jupytext.toml")
    port, token = free_port(), secrets.token_hex(16)
    log = open(root.parent / f"{root.name}-jupyterlab.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [str(BIN / "jupyter"), "lab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=root, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proc, timeout=90)
        yield Lab(root, port, token)
    finally:
        stop_process(proc, timeout=20)
        log.close()


def test_make_lab_serves_the_notebooks_with_the_project_kernel():
    """``make lab`` as a user types it (here with a port and token of the test's own)."""
    port, token = free_port(), secrets.token_hex(16)
    proc = subprocess.Popen(
        ["make", "-s", "lab", f"LAB_ARGS=--no-browser --ServerApp.ip=127.0.0.1 "
         f"--ServerApp.port={port} --ServerApp.port_retries=0 --IdentityProvider.token={token}"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_port(port, proc, timeout=120)
        lab = Lab(ROOT / "notebooks", port, token)
        specs = lab.api("kernelspecs")
        assert KERNEL_NAME in specs["kernelspecs"]
        names = {c["name"] for c in lab.api("contents")["content"]}
        assert {f"{n}.ipynb" for n in ALL} <= names
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


def test_jupytext_pairing_through_the_lab(lab):
    shutil.copy(ROOT / "notebooks" / "explore.py", lab.root / "paired.py")
    shutil.copy(ROOT / "notebooks" / "explore.ipynb", lab.root / "paired.ipynb")
    time.sleep(1.1)  # the .py edited after the notebook (jupytext compares times)
    text = (lab.root / "paired.py").read_text()
    (lab.root / "paired.py").write_text(text.replace("# # Explore:", "# # Explored here:"))
    nb = lab.api("contents/paired.ipynb")["content"]
    assert nb["cells"][0]["source"].startswith("# Explored here:")
    assert nb["metadata"]["kernelspec"]["name"] == KERNEL_NAME
    # saved from the Lab: the .py follows the notebook
    nb["cells"][0]["source"] = "# Saved from the Lab\n"
    lab.api("contents/paired.ipynb", "PUT", {"type": "notebook", "format": "json", "content": nb})
    assert (lab.root / "paired.py").read_text().split("\n")[1] == "# # Saved from the Lab"


@pytest.fixture(scope="module")
def browser():
    _need_chromium()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield b
        finally:
            b.close()


def _parameterized(name: str, dest: Path, **params) -> None:
    """Write a notebook with its parameters set the way papermill sets them (an injected cell)."""
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    nb = load_notebook_node(str(ROOT / "notebooks" / f"{name}.ipynb"))
    nbformat.write(parameterize_notebook(nb, params), dest)


STATE = """() => {
  if (!window.jupyterapp || !window.jupyterapp.shell) return null;
  const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.content || !w.content.model || !w.sessionContext.session) return null;
  const kernel = w.sessionContext.session.kernel;
  const cells = w.content.model.cells;
  let code = 0, done = 0; const errors = [];
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    code++;
    if (c.executionCount !== null) done++;
    for (let j = 0; j < c.outputs.length; j++) {
      const o = c.outputs.get(j);
      if (o.type === 'error') errors.push(JSON.stringify(o.toJSON()).slice(0, 2000));
    }
  }
  return {kernel: kernel ? kernel.name : null, status: kernel ? kernel.status : null,
          code, done, errors, dialogs: document.querySelectorAll('.jp-Dialog').length};
}"""


def _open_and_run(page, lab: Lab, path: str, timeout: float = 600) -> dict:
    """Open a notebook in the Lab, run all its cells, wait until the kernel is idle again."""
    # a workspace of its own: nothing restored from an earlier test's layout
    page.goto(f"{lab.url}/lab/workspaces/{Path(path).stem}/tree/{path}?reset&token={lab.token}")
    deadline = time.monotonic() + 120
    while True:
        state = page.evaluate(STATE)
        if state and state["status"] == "idle":
            break
        assert time.monotonic() < deadline, f"{path}: kernel not idle after 120 s: {state}"
        time.sleep(0.5)
    assert state["dialogs"] == 0, f"{path}: a dialog asked something (which kernel?)"
    assert state["kernel"] == KERNEL_NAME
    page.evaluate("""() => { const app = window.jupyterapp;
        app.shell.activateById(app.shell.currentWidget.id);
        return app.commands.execute('notebook:run-all-cells'); }""")
    deadline = time.monotonic() + timeout
    while True:
        time.sleep(1)
        state = page.evaluate(STATE)
        if state["errors"] or (state["done"] == state["code"] and state["status"] == "idle"):
            return state
        assert time.monotonic() < deadline, f"{path}: not finished after {timeout} s: {state}"


def test_a_paper_notebook_in_jupyterlab(lab, browser, ibm, ibm_tidy):
    _parameterized("03_block_io", lab.root / "03_block_io.ipynb", tidy_dir=str(ibm_tidy),
                   ibm_data=str(ibm), out_dir=str(lab.root / "out03"))
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    state = _open_and_run(page, lab, "03_block_io.ipynb")
    assert not state["errors"], state["errors"]
    assert state["code"] > 10
    # the interactive Fig 7 drawn by plotly in the page, and matplotlib's figures as images
    page.wait_for_selector(".js-plotly-plot svg.main-svg", timeout=60_000)
    assert "Fig 7" in page.locator(".js-plotly-plot .gtitle").first.text_content()
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "lab-03_block_io-fig07.png")
    assert page.locator(".jp-RenderedImage img").count() >= 4
    assert (lab.root / "out03" / "fig07.html").is_file()
    page.close()


def test_the_exploration_notebook_in_jupyterlab(lab, browser, ibm_tidy):
    out = lab.root / "explore-out"
    _parameterized("explore", lab.root / "explore.ipynb", authors_tidy=str(ibm_tidy),
                   tidy_root=str(lab.root / "no-campaigns"), out_dir=str(out))
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    state = _open_and_run(page, lab, "explore.ipynb")
    assert not state["errors"], state["errors"]
    title = page.locator(".overhead-explore .js-plotly-plot .gtitle")
    title.wait_for(timeout=60_000)
    assert title.text_content() == "ibm: mysql transaction_rate"
    assert page.locator(".overhead-explore .js-plotly-plot svg.main-svg").count() >= 1
    top = "e => e.scrollIntoView({block: 'start'})"
    page.locator(".overhead-explore").evaluate(top)
    page.screenshot(path=ARTIFACTS / "lab-explore-before.png")
    traces = page.locator(".overhead-explore .js-plotly-plot .scatterlayer .trace").count()
    assert traces == 5
    # a widget changed: the metric, then the figure follows
    page.locator(".overhead-explore .widget-dropdown", has_text="metric").locator("select") \
        .select_option("latency_mean")
    page.wait_for_function(
        "() => { const t = document.querySelector('.overhead-explore .js-plotly-plot .gtitle');"
        " return t && t.textContent === 'ibm: mysql latency_mean'; }", timeout=60_000)
    ytitle = page.locator(".overhead-explore .js-plotly-plot .g-ytitle").text_content()
    assert ytitle == "s"
    page.locator(".overhead-explore").evaluate(top)
    page.screenshot(path=ARTIFACTS / "lab-explore-after.png")
    # and the export button writes the current view
    page.locator(".overhead-explore button", has_text="Export").click()
    page.wait_for_function(
        "() => document.querySelector('.overhead-explore').textContent.includes('exported:')",
        timeout=120_000)
    stem = "ibm-mysql-latency_mean-by-threads-series-performance-governor"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        f"{stem}{e}" for e in (".csv", ".pdf", ".png", ".svg", "_rows.csv"))
    page.close()


def test_the_report_in_a_browser(typed, browser):
    _, out, _ = typed
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    failed = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto((out / "report.html").as_uri())
    page.wait_for_load_state("load")
    images = page.evaluate("""() => Array.from(document.images).map(i => ({
        src: i.src.slice(0, 40), ok: i.complete && i.naturalWidth > 0, w: i.naturalWidth}))""")
    assert len(images) >= 13 and all(i["ok"] for i in images), [i for i in images if not i["ok"]]
    tables = page.evaluate("""() => Array.from(document.querySelectorAll('table')).map(t =>
        t.querySelectorAll('tbody tr').length)""")
    assert len(tables) >= 3 and all(n > 0 for n in tables), tables
    assert not failed, failed
    assert "Missing outputs" not in page.content()
    page.screenshot(path=ARTIFACTS / "report.png")
    page.close()
