"""The sanitizer runtime options of the sanitizer build (scripts/test.sh
--sanitize), shared by test/lit.cfg.py and test/Unit/lit.cfg.py.

Every report aborts, so `not` (which accepts exit codes, not signals) can't
mistake one for a tool's error exit. allow_user_poisoning=0: LLVM's inline
allocator code (in our instrumented objects) poisons slabs that the
uninstrumented libMLIR.so then fills, a false use-after-poison. Suppressions,
each with its reason, are in fuzz/sanitizer/.
"""
import os


def sanitizer_environment(src_root):
    supp = os.path.join(src_root, "fuzz", "sanitizer")
    return {
        "ASAN_OPTIONS": ":".join([
            "abort_on_error=1", "detect_leaks=1", "allow_user_poisoning=0",
            "suppressions=" + os.path.join(supp, "asan.supp")]),
        "LSAN_OPTIONS": ":".join([
            "suppressions=" + os.path.join(supp, "lsan.supp"),
            "print_suppressions=0"]),
        "UBSAN_OPTIONS": ":".join([
            "abort_on_error=1", "halt_on_error=1", "print_stacktrace=1",
            "suppressions=" + os.path.join(supp, "ubsan.supp")]),
    }
