# -*- Python -*-
# Runs the GoogleTest binaries in unittests/ as part of check-trace.

import os

import lit.formats

config.name = "TRACE-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.trace_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
