"""One ``gpflow-deep fit`` over several processes or machines: ``MultiWorkerMirroredStrategy``.

Every worker runs the same command on its own copy of the table, with ``--cluster`` listing all
workers' ``HOST:PORT`` and ``--worker-index`` naming itself (or with ``TF_CONFIG`` set in the
environment, TensorFlow's own convention). Every worker reads the same shuffled global batches
(same ``--seed``), keeps its share of each, and the gradients are summed over all workers, so the
workers end with equal parameters; worker 0 (the chief) writes the run directory.
"""

import json
import os
from dataclasses import dataclass
from typing import Any, List, Optional

from gpflow_deep.app.cli.parsing import CommandError

TF_CONFIG = "TF_CONFIG"


@dataclass
class Workers:
    """This process's place in a cluster of ``count`` workers, and the strategy they train under."""

    index: int
    count: int
    strategy: Any  # tf.distribute.MultiWorkerMirroredStrategy

    @property
    def is_chief(self) -> bool:
        """Worker 0 writes the run directory and the TensorBoard logs."""
        return self.index == 0

    def describe(self) -> str:
        role = "the chief, it writes the run directory" if self.is_chief else "worker 0 writes the run directory"
        return f"worker {self.index} of {self.count} ({role})"


def cluster_workers(cluster: Optional[str], worker_index: Optional[int]) -> Optional[Workers]:
    """The cluster of ``--cluster HOST:PORT,HOST:PORT,...`` and ``--worker-index I``, or of a
    ``TF_CONFIG`` in the environment; None for a run on this process alone.

    Creates the strategy, which TensorFlow requires before any other TensorFlow work.
    """
    if cluster is None and worker_index is None:
        if TF_CONFIG not in os.environ:
            return None
        addresses, index = _from_environment(os.environ[TF_CONFIG])
    else:
        if cluster is None or worker_index is None:
            raise CommandError("--cluster and --worker-index go together: give both, or neither")
        addresses, index = _addresses(cluster), worker_index
        _check_index(index, addresses)
        os.environ[TF_CONFIG] = json.dumps(
            {"cluster": {"worker": addresses}, "task": {"type": "worker", "index": index}}
        )
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    return Workers(index, len(addresses), strategy)


def _addresses(cluster: str) -> List[str]:
    addresses = [address.strip() for address in cluster.split(",")]
    for address in addresses:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise CommandError(f"--cluster: {address!r} is not HOST:PORT (e.g. localhost:12345,localhost:12346)")
    if len(set(addresses)) != len(addresses):
        raise CommandError(f"--cluster: {cluster!r} lists a worker twice")
    return addresses


def _check_index(index: int, addresses: List[str]) -> None:
    if not 0 <= index < len(addresses):
        raise CommandError(
            f"--worker-index must be in 0..{len(addresses) - 1} for {len(addresses)} workers, got {index}"
        )


def _from_environment(text: str):
    """The worker addresses and this worker's index of a ``TF_CONFIG`` of workers only."""
    try:
        config = json.loads(text)
        addresses, task = config["cluster"]["worker"], config["task"]
        index = int(task["index"])
    except (ValueError, KeyError, TypeError) as error:
        raise CommandError(f"TF_CONFIG is not a cluster of workers with this task's index: {error}") from None
    if task.get("type", "worker") != "worker" or set(config["cluster"]) != {"worker"}:
        raise CommandError("TF_CONFIG: gpflow-deep fit runs workers only (no chief, ps or evaluator tasks)")
    _check_index(index, addresses)
    return list(addresses), index
