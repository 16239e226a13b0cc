"""Figures from the papers that several families share, importable without loading any family.

CTF-Code keeps a counterfactual whose description moved at most epsilon
(normalized Levenshtein distance D_Q) from the original, and among valid
candidates selects argmax D_S - lambda * D_Q.
"""

DEFAULT_EPSILON = 0.13  # largest D_Q of a counterfactual (CTF-Code)
DEFAULT_LAMBDA = 1.2  # weight of D_Q in the selection argmax D_S - lambda * D_Q (CTF-Code)
