"""GPflux's DeepGP with exactly the architecture and initial values of a gpflow_deep DeepGP.

Used only by the benchmarks (GPflux is an optional dependency: ``pip install -e .[bench]``).
Training goes through GPflux's documented Keras path (``as_training_model`` + ``fit``); a
``tf.function`` loop over ``DeepGP.elbo`` is also offered for timing GPflux at its fastest.
"""

import time
from typing import Optional, Tuple

import gpflow
import gpflux
import numpy as np
import tensorflow as tf
from gpflow.keras import tf_keras

from gpflow_deep.evaluation.pointwise import log_predictive_density, rmse


def mirror(model) -> gpflux.models.DeepGP:
    """A GPflux DeepGP whose layers copy the kernels, inducing inputs, mean functions and q(U)
    of ``model`` (a gpflow_deep DeepGP with a Gaussian likelihood)."""
    layers = []
    for layer in model.layers:
        mean_function = layer.mean_function
        gpflux_layer = gpflux.layers.GPLayer(
            gpflow.utilities.deepcopy(layer.kernel),
            gpflow.utilities.deepcopy(layer.inducing_variable),
            num_data=model.num_data,
            mean_function=gpflow.utilities.deepcopy(mean_function)
            if mean_function is not None
            else gpflow.mean_functions.Zero(),
            num_latent_gps=layer.num_latent_gps,
            whiten=layer.whiten,
            verbose=False,
        )
        gpflux_layer.q_mu.assign(layer.q_mu.numpy())
        gpflux_layer.q_sqrt.assign(layer.q_sqrt.numpy())
        layers.append(gpflux_layer)
    likelihood = gpflux.layers.LikelihoodLayer(gpflow.utilities.deepcopy(model.likelihood))
    return gpflux.models.DeepGP(layers, likelihood, num_data=model.num_data)


def own_builder(X: np.ndarray, num_layers: int) -> gpflux.models.DeepGP:
    """GPflux's own architecture (``build_constant_input_dim_deep_gp``): hidden width D, M=100,
    inner q_sqrt 1e-5, likelihood variance 0.01, whitened."""
    from gpflux.architectures import Config, build_constant_input_dim_deep_gp

    config = Config(num_inducing=100, inner_layer_qsqrt_factor=1e-5, likelihood_noise_variance=1e-2, whiten=True)
    return build_constant_input_dim_deep_gp(X, num_layers=num_layers, config=config)


def keras_training(
    dgp: gpflux.models.DeepGP, X: np.ndarray, Y: np.ndarray, batch_size: Optional[int], learning_rate: float = 0.01
):
    """GPflux's Keras training model and a dataset of (shuffled, repeated) batches for it."""
    training_model = dgp.as_training_model()
    training_model.compile(tf_keras.optimizers.Adam(learning_rate))
    N = len(X)
    batch = N if batch_size is None or batch_size >= N else batch_size
    dataset = tf.data.Dataset.from_tensor_slices({"inputs": X, "targets": Y})
    if batch < N:
        dataset = dataset.shuffle(N, seed=0, reshuffle_each_iteration=True)
    dataset = dataset.batch(batch, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE)
    return training_model, dataset


def train_keras(dgp, X, Y, iterations: int, batch_size: Optional[int]) -> float:
    """Train through Keras ``fit``; returns wall seconds (tracing included)."""
    training_model, dataset = keras_training(dgp, X, Y, batch_size)
    began = time.perf_counter()
    training_model.fit(dataset, epochs=1, steps_per_epoch=iterations, verbose=0)
    return time.perf_counter() - began


def elbo_step(
    dgp: gpflux.models.DeepGP, X: np.ndarray, Y: np.ndarray, batch_size: Optional[int], learning_rate: float = 0.01
):
    """A compiled Adam step on ``-dgp.elbo`` (GPflux without Keras ``fit``)."""
    optimizer = tf_keras.optimizers.Adam(learning_rate)
    training_model = dgp.as_training_model()  # builds the layers; its variables are the model's
    variables = training_model.trainable_variables
    N = len(X)
    if batch_size is None or batch_size >= N:
        data = (tf.constant(X), tf.constant(Y))
        batches = None
    else:
        dataset = (
            tf.data.Dataset.from_tensor_slices((X, Y))
            .shuffle(N, seed=0)
            .batch(batch_size, drop_remainder=True)
            .repeat()
        )
        batches = iter(dataset)

    @tf.function
    def step():
        batch = data if batches is None else next(batches)
        with tf.GradientTape() as tape:
            loss = -dgp.elbo(batch)
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    return step


def seconds_per_keras_step(dgp, data, steps: int, batch_size: Optional[int]) -> float:
    """Seconds per step of Keras ``fit``, after 5 untimed (tracing) steps."""
    training_model, dataset = keras_training(dgp, *data, batch_size)
    training_model.fit(dataset, epochs=1, steps_per_epoch=5, verbose=0)
    began = time.perf_counter()
    training_model.fit(dataset, epochs=1, steps_per_epoch=steps, verbose=0)
    return (time.perf_counter() - began) / steps


def seconds_per_loop_step(dgp, data, steps: int, batch_size: Optional[int]) -> float:
    """Seconds per step of the compiled elbo loop, after one untimed (tracing) step."""
    step = elbo_step(dgp, *data, batch_size)
    step()
    began = time.perf_counter()
    for _ in range(steps):
        loss = step()
    float(loss)
    return (time.perf_counter() - began) / steps


def predict_batched(dgp: gpflux.models.DeepGP, X: np.ndarray, num_samples: int) -> Tuple[np.ndarray, np.ndarray]:
    """One GPflux pass with ``num_samples`` hidden samples (broadcast through later layers)."""
    hidden = dgp.f_layers[:-1]
    for layer in hidden:
        layer.num_samples = num_samples
    try:
        mean, var = tf.function(dgp.predict_f)(tf.constant(X))
        return mean.numpy(), var.numpy()
    finally:
        for layer in hidden:
            layer.num_samples = None


def predict_mixture(dgp: gpflux.models.DeepGP, X: np.ndarray, num_samples: int = 100) -> Tuple[np.ndarray, np.ndarray]:
    """``[S, N, P]`` means and variances of y: one GPflux forward pass per sample path."""
    predict = tf.function(lambda inputs: dgp.predict_f(inputs))
    X = tf.constant(X)
    means, variances = [], []
    noise = float(dgp.likelihood_layer.likelihood.variance.numpy())
    for _ in range(num_samples):
        mean, var = predict(X)
        means.append(mean.numpy())
        variances.append(var.numpy() + noise)
    return np.stack(means), np.stack(variances)


def evaluate(dgp, X: np.ndarray, Y: np.ndarray, y_std: float, num_samples: int = 100) -> dict:
    """Test log-likelihood (mixture over ``num_samples`` paths) and RMSE in original units."""
    means, variances = predict_mixture(dgp, X, num_samples)
    scale = float(np.asarray(y_std).reshape(-1)[0])
    log_weights = np.full(num_samples, -np.log(num_samples))
    return {
        "log_likelihood": float(
            np.mean(log_predictive_density(Y * scale, means * scale, variances * scale**2, log_weights))
        ),
        "rmse": rmse(Y * scale, means.mean(axis=0) * scale),
    }
