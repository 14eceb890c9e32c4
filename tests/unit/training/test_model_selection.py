"""Early stopping in fit, and the choice of β on held-out data."""

import numpy as np
import pytest

import gpflow_deep as gd


def test_early_stopping_keeps_the_best_parameters(concrete_split):
    X, Y, X_val, Y_val = concrete_split
    model = gd.build_dspp(X, Y, num_inducing=20, num_sigma_points=4, beta=0.01)
    result = gd.fit(model, (X, Y), 400, validation_data=(X_val, Y_val), patience=3, monitor_every=10, progress=False)
    scores = dict(result.validation)
    assert result.best_iteration == max(scores, key=scores.get)
    assert result.iterations <= 400 and len(result.validation) == result.iterations // 10
    np.testing.assert_allclose(
        np.mean(model.predict_log_density((X_val, Y_val))), scores[result.best_iteration], rtol=1e-10
    )
    if result.iterations < 400:  # it stopped: the last checks did not improve
        assert [i for i, _ in result.validation][-4] == result.best_iteration


def test_restore_best_without_patience_trains_to_the_end(concrete_split):
    X, Y, X_val, Y_val = concrete_split
    model = gd.build_deep_gp(X, Y, num_layers=1, num_inducing=20)
    result = gd.fit(
        model, (X, Y), 30, validation_data=(X_val, Y_val), restore_best=True, monitor_every=10, progress=False
    )
    assert result.iterations == 30 and [i for i, _ in result.validation] == [10, 20, 30]
    assert result.best_iteration in (10, 20, 30)
    with pytest.raises(ValueError, match="need validation_data"):
        gd.fit(model, (X, Y), 5, patience=2, progress=False)


def test_select_beta_picks_the_best_held_out_score(concrete_split):
    X, Y, _, _ = concrete_split
    selection = gd.select_beta(
        X,
        Y,
        betas=(0.01, 1.0),
        iterations=60,
        monitor_every=20,
        progress=False,
        builder_options=dict(num_inducing=15, num_sigma_points=3),
    )
    assert set(selection.scores) == {0.01, 1.0}
    assert selection.beta == max(selection.scores, key=selection.scores.get)
    assert selection.model.beta == selection.beta
    assert selection.model.num_data == int(200 * 5 / 6)  # trained on the training part only
    with pytest.raises(ValueError, match="validation_fraction"):
        gd.select_beta(X, Y, validation_fraction=1.5)
