"""Progress lines of long loops: running objective, speed and time left."""

import io

from gpflow_deep.training.progress import Progress, time_left


def test_progress_reports_objective_and_time_left():
    stream = io.StringIO()
    progress = Progress(total=100, stream=stream)
    progress.report(1, -500.0)  # the first step (tracing included): no estimate yet
    first = stream.getvalue()
    assert first.startswith("iteration 1/100  objective -500") and first.endswith("it/s\n")
    progress._first_report = (progress._first_report[0] - 10.0, 1)  # 10 s for iterations 2-20
    progress.report(20, -123.5)
    line = stream.getvalue()[len(first) :]
    assert line.startswith("iteration 20/100  objective -123.5") and line.endswith("  42 s left\n")


def test_time_left_units():
    expected = ["0 s left", "119 s left", "10 min left", "3.0 h left"]
    assert [time_left(seconds) for seconds in (0.4, 119, 600, 7200 * 1.5)] == expected
