"""Issue 35's summary over cost-table runs: the medians and verdicts the closing figures are read from."""

from benchmarks.suites.cost_summary import collected, markdown, meets


def _ratio(label, value, ms=(10.0, 10.0)):
    record = dict(kind="cost_table", label=label, figure="SoDDGP / DeepGP", setting="boston", goal="<= 1.0")
    return record | dict(ratio=value, ms=dict(numerator=ms[0], denominator=ms[1]))


def test_the_median_over_runs_is_read_against_the_goal():
    records = [_ratio("idle run 1", 1.3, (13, 10)), _ratio("idle run 2", 0.9, (9, 10)), _ratio("idle run 3", 0.95)]
    records.append(_ratio("other run 1", 0.1))
    table = collected(records, "idle run")
    assert list(table) == [("SoDDGP / DeepGP", "boston", "<= 1.0")]
    assert "| SoDDGP / DeepGP | boston | 1.30, 0.90, 0.95 | 0.95 | 10.0 vs 10.0 | <= 1.0 | yes |" in markdown(table)


def test_a_share_row_gives_one_figure_per_precision_with_its_own_goal():
    share = dict(kind="cost_table", label="idle run 1", figure="DeepGP share of the matmul peak", setting="10,000")
    share.update(goal="float64 >= 0.9, float32 >= 0.6", share={"float64": 0.55, "float32": 0.7})
    share["ms"] = {"float64": 500.0, "float32": 200.0}
    lines = markdown(collected([share], "idle")).splitlines()
    assert "| DeepGP share of the matmul peak, float64 | 10,000 | 0.55 | 0.55 | 500.0 | >= 0.9 | no |" in lines
    assert "| DeepGP share of the matmul peak, float32 | 10,000 | 0.70 | 0.70 | 200.0 | >= 0.6 | yes |" in lines


def test_goals_read_in_both_senses():
    assert meets(0.5, "<= 0.5") and not meets(0.51, "<= 0.5")
    assert meets(0.9, ">= 0.9") and not meets(0.89, ">= 0.9")
