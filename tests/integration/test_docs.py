"""The documentation site builds offline with no warning and no broken link."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.skipif(shutil.which("mkdocs") is None, reason="mkdocs is not installed (pip install -e '.[docs]')")
def test_docs_build_strictly(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "WARNING" not in result.stderr, result.stderr[-3000:]
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "doubly stochastic ELBO" in api and "mixture_quantile" in api, "docstrings reach the API reference"
