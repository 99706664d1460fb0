# -*- Python -*-
# Runs the GoogleTest binaries in unittests/ as part of check-trace.

import os
import sys

import lit.formats

config.name = "TRACE-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.trace_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# The sanitizer build: the same runtime options as the lit tests.
if config.trace_sanitizer:
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from sanitizer_options import sanitizer_environment
    config.environment.update(sanitizer_environment(config.trace_src_root))
