"""benchmorph: execution-verified benchmark variants and evaluation of code LLMs."""

__version__ = "0.1.0"
