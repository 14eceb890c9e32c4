"""The peers, GPflux and GPyTorch (optional dependencies: ``pip install -e ".[bench]"`` and
``".[bench-torch]"``), and the settings shared with them."""

GPYTORCH_SETUP = dict(num_inducing=100, hidden_width=3, num_sigma_points=8, paper_defaults=True)
"""``build_dspp`` options of the GPyTorch comparison: its example's 2-layer DSPP (M=100, width 3, S=8)."""
