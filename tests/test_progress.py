"""Progress lines of long loops: running objective, speed and time left."""

import io

from gpflow_deep.training.progress import Progress, time_left


def test_progress_reports_objective_and_time_left():
    stream = io.StringIO()
    progress = Progress(total=100, stream=stream)
    progress._began -= 10.0  # ten seconds for the first 20 iterations: 40 s for the other 80
    progress.report(20, -123.5)
    line = stream.getvalue()
    assert line.startswith("iteration 20/100  objective -123.5") and line.endswith("  40 s left\n")


def test_time_left_units():
    expected = ["0 s left", "119 s left", "10 min left", "3.0 h left"]
    assert [time_left(seconds) for seconds in (0.4, 119, 600, 7200 * 1.5)] == expected
