"""Build hook of cint-runtime: compiles runtime-c into the package at install time (fast first use,
docs/runtime.md "Build cache"; cint_runtime.prebuilt).

An editable install (``pip install -e``) writes ``src/cint_runtime/prebuilt-objects/rt-<key>/``; a wheel gets
the objects as ``cint_runtime/prebuilt-objects/rt-<key>/`` and a platform tag.  Without a C compiler, or if it
fails, the install goes on without them and the first build compiles into the build cache.
"""
import importlib
import sys
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class PrebuiltRuntimeHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        src = str(Path(self.root) / "src")
        sys.path.insert(0, src)
        try:
            for name in [m for m in sys.modules if m == "cint_runtime" or m.startswith("cint_runtime.")]:
                del sys.modules[name]
            prebuilt = importlib.import_module("cint_runtime.prebuilt")
            if version == "editable":
                prebuilt.main([])
                return
            self._tmp = tempfile.TemporaryDirectory(prefix="cint-runtime-prebuilt-")
            if prebuilt.main(["--folder", self._tmp.name]) != 0:
                return
            for entry in Path(self._tmp.name).glob("rt-*"):
                build_data["force_include"][str(entry)] = "cint_runtime/prebuilt-objects/" + entry.name
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
        finally:
            sys.path.remove(src)

    def finalize(self, version, build_data, artifact_path):
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
