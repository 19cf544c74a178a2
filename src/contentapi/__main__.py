"""`python -m contentapi` runs the command-line interface."""

from contentapi.cli import main

main()
