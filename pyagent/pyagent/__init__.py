"""A PyTorch worker agent for the ATA task broker: Python nodes join a fleet beside the Java (DJL)
agents, on the same topics, in the same job. Run it with ``python3 -m pyagent``."""

__version__ = "0.1.0"
