"""Peak memory of ``gpflow-deep fit`` and ``predict`` does not grow with the number of rows: each
command runs in its own process, on a small and a large generated table."""

import subprocess
import sys

import pytest
from fixtures.tables import write_generated_table

SMALL, LARGE = 150_000, 600_000  # both beyond the 100,000-row shuffle buffer
PREDICTED_SMALL, PREDICTED_LARGE = 60_000, 240_000  # both beyond a 4 MB batch of the file (50,000 rows)
TOLERANCE_MB = 120  # the large table's encoded rows alone would be 330 MB (fit), 130 MB (predict)
LAUNCH = "import sys; from gpflow_deep.app.cli.main import main; sys.exit(main())"
MEASURE = (
    "import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024); sys.exit(code)"
)


def peak_mb(*arguments) -> int:
    """The peak resident memory (MB) of ``gpflow-deep ARGUMENTS`` run in a process of its own."""
    command = [sys.executable, "-c", MEASURE, sys.executable, "-c", LAUNCH, *map(str, arguments)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return int(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_peak_memory_is_flat_in_the_number_of_rows(tmp_path):
    options = ["--target", "y", "--iterations", "5", "--batch-size", "1000", "--model", "dspp"]
    fits = {}
    for rows in (SMALL, LARGE):
        table = write_generated_table(tmp_path / f"{rows}.csv", rows)
        fits[rows] = peak_mb("fit", table, "--out", tmp_path / f"run{rows}", *options)
    predictions = {}
    for rows in (PREDICTED_SMALL, PREDICTED_LARGE):
        table = write_generated_table(tmp_path / f"new{rows}.csv", rows, seed=1)
        predictions[rows] = peak_mb("predict", tmp_path / f"run{SMALL}", table, "--out", tmp_path / f"p{rows}.csv")
    assert fits[LARGE] <= fits[SMALL] + TOLERANCE_MB, fits
    assert predictions[PREDICTED_LARGE] <= predictions[PREDICTED_SMALL] + TOLERANCE_MB, predictions
