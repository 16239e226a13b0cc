"""`python -m benchmorph.cli` runs the same app as the `benchmorph` script."""

from benchmorph.cli.app import main

main()
