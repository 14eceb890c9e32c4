"""GPyTorch's DSPP with the architecture of a gpflow_deep DSPP, for side-by-side benchmarks.

Built from GPyTorch's own pieces (``DSPPLayer``, ``DSPP``, ``DeepPredictiveLogLikelihood``) the
way its documentation builds a two-layer DSPP: Matérn-5/2 ARD kernels with a scale, mean-field
whitened q(u), a linear mean on the hidden layer and a constant mean on the last. Inducing inputs
are taken from the gpflow_deep model so that both start from the same k-means centres. Optional
dependency: ``pip install torch==2.13.0 gpytorch``.
"""

import time

import numpy as np
import torch
from gpytorch.distributions import MultivariateNormal
from gpytorch.kernels import MaternKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood
from gpytorch.means import ConstantMean, LinearMean
from gpytorch.mlls import DeepPredictiveLogLikelihood
from gpytorch.models.deep_gps.dspp import DSPP, DSPPLayer
from gpytorch.variational import MeanFieldVariationalDistribution, VariationalStrategy
from scipy.special import logsumexp


class _Layer(DSPPLayer):
    def __init__(self, inducing_inputs: np.ndarray, output_dims, num_sigma_points: int, linear_mean: bool):
        batch_shape = torch.Size([output_dims]) if output_dims is not None else torch.Size([])
        Z = torch.as_tensor(inducing_inputs)
        if output_dims is not None:
            Z = Z.expand(output_dims, *Z.shape).clone()
        distribution = MeanFieldVariationalDistribution(Z.shape[-2], batch_shape=batch_shape)
        strategy = VariationalStrategy(self, Z, distribution, learn_inducing_locations=True)
        input_dims = inducing_inputs.shape[-1]
        super().__init__(strategy, input_dims, output_dims, num_sigma_points)
        self.mean_module = (
            LinearMean(input_dims, batch_shape=batch_shape) if linear_mean else ConstantMean(batch_shape=batch_shape)
        )
        self.covar_module = ScaleKernel(
            MaternKernel(nu=2.5, batch_shape=batch_shape, ard_num_dims=input_dims), batch_shape=batch_shape
        )

    def forward(self, x):
        return MultivariateNormal(self.mean_module(x), self.covar_module(x))


class TwoLayerDSPP(DSPP):
    """Hidden layer of width W (linear mean), output layer (constant mean), S sigma points."""

    def __init__(self, model):
        hidden, last = model.layers
        S = model.num_sigma_points
        super().__init__(S)
        self.hidden = _Layer(hidden.inducing_variable.inducing_variable.Z.numpy(), hidden.num_latent_gps, S, True)
        self.last = _Layer(last.inducing_variable.inducing_variable.Z.numpy(), None, S, False)
        self.likelihood = GaussianLikelihood()

    def forward(self, x):
        return self.last(self.hidden(x))

    def predictive_mixture(self, X: np.ndarray):
        """``[S, N]`` means and variances of y, and the ``[S]`` log-weights."""
        with torch.no_grad():
            output = self.likelihood(self(torch.as_tensor(X)))
            return output.mean.numpy(), output.variance.numpy(), self.quad_weights.numpy()


def train(peer: TwoLayerDSPP, X: np.ndarray, Y: np.ndarray, iterations: int, beta: float, learning_rate: float = 0.01):
    """Full-batch Adam on GPyTorch's DeepPredictiveLogLikelihood; returns seconds per step
    (the first step excluded)."""
    X, y = torch.as_tensor(X), torch.as_tensor(Y[:, 0])
    objective = DeepPredictiveLogLikelihood(peer.likelihood, peer, num_data=len(X), beta=beta)
    optimizer = torch.optim.Adam(peer.parameters(), lr=learning_rate)
    peer.train()
    began = None
    for step in range(iterations):
        if step == 1:
            began = time.perf_counter()
        optimizer.zero_grad()
        loss = -objective(peer(X), y)
        loss.backward()
        optimizer.step()
    peer.eval()
    return (time.perf_counter() - began) / max(iterations - 1, 1)


def evaluate(peer: TwoLayerDSPP, X: np.ndarray, Y: np.ndarray, y_std: float) -> dict:
    """Test log-likelihood of the exact mixture and RMSE of its mean, in original units."""
    means, variances, log_weights = peer.predictive_mixture(X)
    scale = float(np.asarray(y_std).reshape(-1)[0])
    y = Y[:, 0]
    component = -0.5 * (np.log(2 * np.pi * variances * scale**2) + (y - means) ** 2 / variances)
    mean = np.sum(np.exp(log_weights)[:, None] * means, axis=0)
    return {
        "log_likelihood": float(np.mean(logsumexp(component + log_weights[:, None], axis=0))),
        "rmse": float(np.sqrt(np.mean((y - mean) ** 2))) * scale,
    }
