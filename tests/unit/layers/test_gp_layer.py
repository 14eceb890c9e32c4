"""GPLayer against GPflow's own conditionals and KL, and its hand-written gradient."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from gpflow.inducing_variables import InducingPoints, SeparateIndependentInducingVariables
from gpflow.kernels import SeparateIndependent, SharedIndependent, SquaredExponential

from gpflow_deep import GPLayer
from gpflow_deep.layers.gp.sparse_marginals import projected_square_norms, triangle_blocks

pytestmark = pytest.mark.shape_checks("compiled")

M, D, L = 6, 3, 2


def random_layer(rng, *, separate_kernel=False, separate_inducing=False, q_diag=False, whiten=True, mean=None):
    if separate_kernel:
        kernel = SeparateIndependent([SquaredExponential(lengthscales=rng.uniform(0.5, 2, D)) for _ in range(L)])
    else:
        kernel = SharedIndependent(SquaredExponential(lengthscales=rng.uniform(0.5, 2, D)), output_dim=L)
    if separate_inducing:
        inducing = SeparateIndependentInducingVariables([InducingPoints(rng.normal(size=(M, D))) for _ in range(L)])
    else:
        inducing = rng.normal(size=(M, D))
    q_sqrt = rng.uniform(0.1, 1, (M, L)) if q_diag else np.tril(rng.normal(size=(L, M, M)))
    return GPLayer(
        kernel,
        inducing,
        mean_function=mean,
        q_diag=q_diag,
        whiten=whiten,
        q_mu=rng.normal(size=(M, L)),
        q_sqrt=q_sqrt,
    )


CONFIGURATIONS = [
    dict(separate_kernel=sk, separate_inducing=si, q_diag=qd, whiten=w)
    for sk in (False, True)
    for si in (False, True)
    for qd in (False, True)
    for w in (True, False)
]


def gpflow_conditional(layer, inputs, full_cov):
    """GPflow's own conditional for the layer's q(U) at ``inputs`` [N, D]: the reference."""
    return gpflow.conditionals.conditional(
        inputs,
        layer.inducing_variable,
        layer.kernel,
        layer.q_mu,
        q_sqrt=layer.q_sqrt,
        white=layer.whiten,
        full_cov=full_cov,
        full_output_cov=False,
    )


@pytest.mark.parametrize("config", CONFIGURATIONS, ids=lambda c: "-".join(k for k, v in c.items() if v) or "shared")
def test_marginals_equal_gpflow_conditional(rng, config):
    layer = random_layer(rng, **config)
    inputs = rng.normal(size=(4, 5, D))  # leading sample axis
    mean, var = layer.marginals(inputs)
    expected_mean, expected_var = gpflow_conditional(layer, inputs.reshape(-1, D), full_cov=False)
    np.testing.assert_allclose(mean.numpy().reshape(-1, L), expected_mean, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(var.numpy().reshape(-1, L), expected_var, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(
    "config", CONFIGURATIONS[::3], ids=lambda c: "-".join(k for k, v in c.items() if v) or "shared"
)
def test_full_covariance_equals_gpflow_conditional(rng, config):
    layer = random_layer(rng, **config)
    inputs = rng.normal(size=(2, 5, D))
    mean, cov = layer.full_covariance(inputs)
    for b in range(2):
        expected_mean, expected_cov = gpflow_conditional(layer, inputs[b], full_cov=True)
        np.testing.assert_allclose(mean[b], expected_mean, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(cov[b], expected_cov, rtol=1e-9, atol=1e-10)
    _, var = layer.marginals(inputs)
    np.testing.assert_allclose(np.diagonal(cov, axis1=-2, axis2=-1), np.transpose(var, [0, 2, 1]), rtol=1e-9)


@pytest.mark.parametrize("whiten", [True, False])
@pytest.mark.parametrize("q_diag", [True, False])
def test_prior_kl_equals_gpflow(rng, whiten, q_diag):
    layer = random_layer(rng, q_diag=q_diag, whiten=whiten)
    expected = gpflow.kullback_leiblers.prior_kl(
        layer.inducing_variable, layer.kernel, layer.q_mu, layer.q_sqrt, whiten=whiten
    )
    np.testing.assert_allclose(layer.prior_kl(), expected, rtol=1e-10)


def test_prior_kl_read_from_the_packed_triangle_has_gpflows_gradient(rng):
    """The whitened full-q_sqrt KL reads q_sqrt's unconstrained (packed) variable: its gradients with
    respect to both variational variables equal those of GPflow's ``gauss_kl``, also after an assign."""
    layer = random_layer(rng)
    layer.q_sqrt.assign(np.tril(rng.normal(size=(L, M, M))))
    variables = [layer.q_mu.unconstrained_variable, layer.q_sqrt.unconstrained_variable]
    with tf.GradientTape(persistent=True) as tape:
        ours = layer.prior_kl()
        gpflows = gpflow.kullback_leiblers.gauss_kl(layer.q_mu, layer.q_sqrt)
    np.testing.assert_allclose(ours, gpflows, rtol=1e-12)
    for mine, theirs in zip(tape.gradient(ours, variables), tape.gradient(gpflows, variables)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)


def test_prior_kl_is_zero_when_q_equals_the_prior(rng):
    layer = GPLayer(SquaredExponential(), rng.normal(size=(M, D)), num_latent_gps=L)
    assert abs(float(layer.prior_kl())) < 1e-12


def test_mean_function_is_added(rng):
    mean = gpflow.mean_functions.Linear(A=rng.normal(size=(D, L)), b=rng.normal(size=L))
    with_mean = random_layer(np.random.default_rng(1), mean=mean)
    without = random_layer(np.random.default_rng(1))
    inputs = rng.normal(size=(3, 4, D))
    difference = with_mean.marginals(inputs)[0] - without.marginals(inputs)[0]
    np.testing.assert_allclose(difference, mean(inputs), rtol=1e-10)


@pytest.mark.parametrize("shared", [True, False])
def test_projected_square_norms_gradient_matches_finite_differences(rng, shared):
    q = np.tril(rng.normal(size=(3, 4, 4)))
    P = rng.normal(size=(4, 5) if shared else (3, 4, 5))
    weights = rng.normal(size=(5, 3))

    def objective(q_value, P_value):
        q_value, P_value = tf.convert_to_tensor(q_value), tf.convert_to_tensor(P_value)
        return tf.reduce_sum(weights * projected_square_norms(q_value, P_value))

    q_var, P_var = tf.Variable(q), tf.Variable(P)
    with tf.GradientTape() as tape:
        value = objective(q_var, P_var)
    grad_q, grad_P = tape.gradient(value, [q_var, P_var])
    P_per_l = np.broadcast_to(P, (3, 4, 5))
    expected = np.sum(weights.T * np.sum(np.einsum("lmk,lmn->lkn", q, P_per_l) ** 2, axis=1))
    np.testing.assert_allclose(value, expected, rtol=1e-10)
    for array, gradient in ((q, grad_q), (P, grad_P)):
        numeric = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            step = np.zeros_like(array)
            step[index] = 1e-6
            args = (q + step, P) if array is q else (q, P + step)
            args_minus = (q - step, P) if array is q else (q, P - step)
            numeric[index] = (objective(*args) - objective(*args_minus)) / 2e-6
        np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("M", [30, 77, 100])
def test_projected_square_norms_by_triangle_blocks_equal_the_dense_product(rng, M, upper):
    """Several column blocks (M ≥ 26): value and both gradients equal autodiff of the dense
    product with the triangle; entries outside it are ignored and get zero gradient."""
    assert len(triangle_blocks(M, 3)) > 1
    q = tf.constant(rng.normal(size=(3, M, M)))
    P = tf.constant(rng.normal(size=(M, 7)))
    weights = rng.normal(size=(7, 3))
    triangle = (lambda T: tf.linalg.band_part(T, 0, -1)) if upper else (lambda T: tf.linalg.band_part(T, -1, 0))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([q, P])
        blocked = tf.reduce_sum(weights * projected_square_norms(q, P, upper=upper))
        products = tf.linalg.matmul(triangle(q), P[None], transpose_a=True)  # [3, M, 7]
        dense = tf.reduce_sum(weights.T * tf.reduce_sum(tf.square(products), axis=1))
    np.testing.assert_allclose(blocked, dense, rtol=1e-12)
    for ours, reference in zip(tape.gradient(blocked, [q, P]), tape.gradient(dense, [q, P])):
        np.testing.assert_allclose(ours, reference, rtol=1e-10, atol=1e-12)
    d_q = tape.gradient(blocked, q).numpy()
    assert np.all((np.tril(d_q, k=-1) if upper else np.triu(d_q, k=1)) == 0)


def test_triangle_blocks_partition_the_columns():
    assert triangle_blocks(10, 13) == [(0, 10)]
    assert triangle_blocks(100, 13) == [(0, 25), (25, 50), (50, 75), (75, 100)]
    assert triangle_blocks(100, 1) == [(0, 50), (50, 100)]  # 50 columns across the L
    assert triangle_blocks(None, 13) == [(0, None)]
    for M in (26, 77, 500):
        blocks = triangle_blocks(M, 3)
        assert blocks[0][0] == 0 and blocks[-1][1] == M and len(blocks) <= 8
        assert all(stop == next_start for (_, stop), (next_start, _) in zip(blocks, blocks[1:]))


def test_layer_gradients_match_finite_differences(rng):
    layer = random_layer(rng)
    inputs = tf.constant(rng.normal(size=(2, 4, D)))
    weights = rng.normal(size=(2, 4, L))
    variables = layer.trainable_variables

    def objective():
        mean, var = layer.marginals(inputs)
        return tf.reduce_sum(weights * (mean + var)) + layer.prior_kl()

    with tf.GradientTape() as tape:
        value = objective()
    gradients = tape.gradient(value, variables)
    for variable, gradient in zip(variables, gradients):
        flat = variable.numpy().reshape(-1)
        for index in rng.choice(flat.size, size=min(5, flat.size), replace=False):
            original = flat[index]
            values = []
            for delta in (1e-6, -1e-6):
                flat[index] = original + delta
                variable.assign(flat.reshape(variable.shape))
                values.append(float(objective()))
            flat[index] = original
            variable.assign(flat.reshape(variable.shape))
            numeric = (values[0] - values[1]) / 2e-6
            assert np.isclose(gradient.numpy().reshape(-1)[index], numeric, rtol=1e-5, atol=1e-6), variable.name


def test_plain_kernel_needs_num_latent_gps(rng):
    with pytest.raises(ValueError, match="num_latent_gps"):
        GPLayer(SquaredExponential(), rng.normal(size=(M, D)))


def test_num_latent_gps_must_match_a_multioutput_kernel(rng):
    kernel = SharedIndependent(SquaredExponential(), output_dim=2)
    with pytest.raises(ValueError, match="num_latent_gps=3"):
        GPLayer(kernel, rng.normal(size=(M, D)), num_latent_gps=3)


def test_unsupported_kernel_is_rejected(rng):
    kernel = gpflow.kernels.LinearCoregionalization([SquaredExponential()], W=np.ones((2, 1)))
    with pytest.raises(TypeError, match="SharedIndependent or SeparateIndependent"):
        GPLayer(kernel, rng.normal(size=(M, D)))
    with pytest.raises(TypeError, match="gpflow.kernels.Kernel"):
        GPLayer("rbf", rng.normal(size=(M, D)), num_latent_gps=1)


def test_bad_inducing_inputs_are_rejected(rng):
    with pytest.raises(ValueError, match=r"\[M, D_in\]"):
        GPLayer(SquaredExponential(), rng.normal(size=(M,)), num_latent_gps=1)
    with pytest.raises(TypeError, match="inducing_variable"):
        GPLayer(SquaredExponential(), "kmeans", num_latent_gps=1)
    separate = SeparateIndependentInducingVariables([InducingPoints(rng.normal(size=(M, D)))])
    with pytest.raises(ValueError, match="1 separate sets"):
        GPLayer(SquaredExponential(), separate, num_latent_gps=2)


def test_bad_variational_shapes_are_rejected(rng):
    with pytest.raises(ValueError, match=r"q_mu must have shape \[6, 2\]"):
        GPLayer(SquaredExponential(), rng.normal(size=(M, D)), 2, q_mu=np.zeros((M, 3)))
    with pytest.raises(ValueError, match=r"q_sqrt must have shape \[6, 2\]"):
        GPLayer(SquaredExponential(), rng.normal(size=(M, D)), 2, q_diag=True, q_sqrt=np.ones((M, 1)))
