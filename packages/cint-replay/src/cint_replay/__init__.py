"""cint_replay: recordings and replay (SPEC-03P.1 9.3), and the reference executor as a replay target.

- ``format``: the recording bytes (docs/encodings.md), a writer's pieces and the strict reader;
- ``Recorder``: writes a recording as a host calls a context (the ``cint`` package attaches it);
- ``replay``: checks a recording whole (``prepare``: also compiles its sources in a private temporary
  folder), then replays it on an executor adapter;
- ``RefExecutor``: cpu-sir-interp as an adapter (calls, checkpoints, restore);
- ``ReplayDivergence`` / ``Unreplayable``: CINT_DIVERGED / CINT_UNREPLAYABLE.

The ``cint`` package re-exports Recorder, RecorderError, RecordingError (an Unreplayable), replay,
ReplayDivergence and Unreplayable.
"""
from .errors import ReplayDivergence, Unreplayable
from .format import RecordingError
from .outcome import EntryOutcome
from .recorder import Recorder, RecorderError
from .refexec import RefExecutor, RestoreRefused
from .replay import ReplayResult, check, prepare, replay

__version__ = "0.2.0"

__all__ = ["Recorder", "RecorderError", "RecordingError", "ReplayDivergence", "Unreplayable", "EntryOutcome",
           "RefExecutor", "RestoreRefused", "ReplayResult", "check", "prepare", "replay", "__version__"]
