"""Quality checks: small registered functions, one module per subject."""
