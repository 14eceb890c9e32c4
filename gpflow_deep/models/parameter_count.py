"""How many scalars a model trains: the size of the optimiser's problem."""

import numpy as np
import tensorflow as tf


def num_trainable_parameters(module: tf.Module) -> int:
    """Σ of the sizes of ``module``'s trainable variables (unconstrained: a triangular ``[L, M, M]``
    factor counts L·M(M+1)/2), each shared variable once."""
    return int(sum(np.prod(variable.shape) for variable in module.trainable_variables))
