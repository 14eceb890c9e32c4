"""How inputs travel through a stack of layers: one function per propagation rule.

Each rule returns, for every layer, the Gaussian marginals it produced and the values it passed on,
all ``[S, N, D_l]`` with S paths. Layers are anything that keeps the layer protocol
(:mod:`gpflow_deep.layers.protocol`). The first layer sees the same inputs on every path, so it
receives them once (``[1, N, D]``): a layer that draws nothing of its own is evaluated once and its
outputs broadcast, and one that draws per path (``path_dependent``) is told the number of paths and
shares whatever does not depend on the draw (a kernel matrix at the inputs) between them.
"""

from gpflow_deep.propagation.fed_forward import sample_layers_feeding_inputs
from gpflow_deep.propagation.joint import sample_layers_jointly
from gpflow_deep.propagation.moment_matching import moment_matched_layers
from gpflow_deep.propagation.outputs import LayerOutput
from gpflow_deep.propagation.sampled import sample_layers
from gpflow_deep.propagation.sigma_points import sigma_point_layers

__all__ = [
    "LayerOutput",
    "moment_matched_layers",
    "sample_layers",
    "sample_layers_feeding_inputs",
    "sample_layers_jointly",
    "sigma_point_layers",
]
