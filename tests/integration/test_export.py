"""Export: every model's SavedModel serves the in-process predictions in a process that cannot
import gpflow_deep, GPflow, TensorFlow Probability or check_shapes."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpflow_deep as gd
from gpflow_deep.registry import MODEL_BUILDERS
from gpflow_deep.saved_model import SIGNATURES

pytestmark = pytest.mark.shape_checks("off")

OPTIONS = {"deep_gp": dict(num_inducing=5), "dspp": dict(num_inducing=5), "aep_dgp": dict(num_inducing=5)}
SEED = [7, 11]
SAMPLES = 5

SERVE = textwrap.dedent(
    """
    import json, sys

    BLOCKED = {"gpflow_deep", "gpflow", "tensorflow_probability", "check_shapes"}

    class Refuse:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is blocked")

    sys.meta_path.insert(0, Refuse())
    import numpy as np
    import tensorflow as tf

    for name in BLOCKED:
        try:
            __import__(name)
            raise SystemExit(f"{name} could be imported")
        except ImportError:
            pass
    X, Y = np.load(sys.argv[1])["X"], np.load(sys.argv[1])["Y"]
    served, specs = {}, {}
    for name in json.loads(sys.argv[2]):
        loaded = tf.saved_model.load(f"{sys.argv[3]}/{name}")
        signatures = loaded.signatures
        specs[name] = [str(signatures["predict_f"].structured_input_signature[1]["X"].shape), sorted(signatures)]
        options = dict(num_samples=tf.constant(%d), seed=tf.constant(%s, tf.int64))
        outputs = {
            "f": signatures["predict_f"](X=X, **options),
            "y": signatures["predict_y"](X=X, **options),
            "mixture": signatures["predict_mixture"](X=X, **options),
            "log_density": signatures["predict_log_density"](X=X, Y=Y, **options),
            "few_rows": signatures["predict_y"](X=X[:3], **options),
            "scalar_seed": signatures["predict_f"](X=X, num_samples=%d, seed=7),
            "other_seed": signatures["predict_f"](X=X, num_samples=%d, seed=[8, 11]),
        }
        for quantity, values in outputs.items():
            for key, value in values.items():
                served[f"{name}/{quantity}/{key}"] = value.numpy()
        served[f"{name}/monte_carlo"] = loaded.monte_carlo.numpy()
    refused = []
    for bad in (dict(num_samples=0, seed=1), dict(num_samples=%d, seed=[1, 2, 3])):
        try:
            loaded.signatures["predict_f"](X=X, **bad)
        except tf.errors.InvalidArgumentError as error:
            refused.append(error.message)
    np.savez(sys.argv[4], **served)
    print(json.dumps([specs, refused]))
    """
    % (SAMPLES, SEED, SAMPLES, SAMPLES, SAMPLES)
)


def perturbed(model, rng):
    """The model with every trainable variable moved, so that predictions depend on the paths."""
    for variable in model.trainable_variables:
        variable.assign(variable + 0.1 * rng.standard_normal(variable.shape))
    return model


def in_process(model, X, Y):
    """The same quantities as SERVE, from the model itself."""
    options = dict(num_samples=SAMPLES, seed=SEED)
    moments = {q: dict(zip(("mean", "variance"), getattr(model, f"predict_{q}")(X, **options))) for q in "fy"}
    mixture = model.predict_mixture(X, **options)
    return {
        **moments,
        "mixture": dict(means=mixture.means, variances=mixture.variances, log_weights=mixture.log_weights),
        "log_density": dict(log_density=model.predict_log_density((X, Y), **options)),
        "few_rows": dict(zip(("mean", "variance"), model.predict_y(X[:3], **options))),
        "scalar_seed": dict(zip(("mean", "variance"), model.predict_f(X, num_samples=SAMPLES, seed=7))),
    }


SERVED_BY_DEFAULT = ("dspp", "deep_gp")  # the quadrature model and a Monte Carlo one (last: its refusals are checked)


@pytest.mark.parametrize(
    "names",
    [
        pytest.param(SERVED_BY_DEFAULT, id="dspp+deep_gp"),
        pytest.param(
            tuple(name for name in MODEL_BUILDERS if name not in SERVED_BY_DEFAULT), marks=pytest.mark.slow, id="others"
        ),
    ],
)
def test_every_model_is_served_without_gpflow_deep(names, rng, tmp_path):
    N = 40
    X = rng.normal(size=(N, 2))
    Y = np.sin(X[:, :1]) + 0.1 * rng.normal(size=(N, 1))
    X_test, Y_test = rng.normal(size=(N, 2)), rng.normal(size=(N, 1))
    expected = {}
    for name in names:
        model = perturbed(getattr(gd, MODEL_BUILDERS[name])(X, Y, 2, **OPTIONS.get(name, {})), rng)
        model.prediction_batch_size = 16  # three chunks, the last one short
        expected[name] = (in_process(model, X_test, Y_test), model.monte_carlo)
        gd.export(model, str(tmp_path / name))
    np.savez(tmp_path / "data.npz", X=X_test, Y=Y_test)
    command = [sys.executable, "-c", SERVE, str(tmp_path / "data.npz"), json.dumps(list(names))]
    command += [str(tmp_path), str(tmp_path / "served.npz")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    specs, refused = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(refused) == 2 and "num_samples must be positive" in refused[0] and "scalar or a pair" in refused[1]
    served = np.load(tmp_path / "served.npz")
    for name, (quantities, monte_carlo) in expected.items():
        assert specs[name] == ["(None, 2)", sorted(SIGNATURES)]
        assert bool(served[f"{name}/monte_carlo"]) == monte_carlo
        for quantity, values in quantities.items():
            for key, value in values.items():
                np.testing.assert_allclose(served[f"{name}/{quantity}/{key}"], value, rtol=1e-8, atol=1e-8)
        for key in ("mean", "variance"):
            seeds_matter = not np.array_equal(served[f"{name}/other_seed/{key}"], served[f"{name}/scalar_seed/{key}"])
            assert seeds_matter == monte_carlo, (name, key)
    if "deep_gp" in names:
        assert served["deep_gp/mixture/means"].shape == (SAMPLES, N, 1)
    if "dspp" in names:
        assert served["dspp/mixture/means"].shape[0] == 10  # DSPP's own sigma points, whatever num_samples says


def test_export_refuses_other_objects(tmp_path):
    with pytest.raises(TypeError, match="gpflow_deep model"):
        gd.export(object(), str(tmp_path))
