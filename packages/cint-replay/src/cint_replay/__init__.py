"""cint_replay: checkpoints and recordings (SPEC-03P.1 clause 9).

It will hold checkpoints as files, the Recorder, replay and read_checkpoint,
which the `cint` package re-exports. Nothing is implemented yet.
"""
__version__ = "0.2.0"
