"""Hostile-user cases of the command line, run as real subprocesses."""
