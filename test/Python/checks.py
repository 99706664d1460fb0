"""PASS/FAIL lines for the Python tests (train.py, donation.py): each
check prints one line; `summary` prints the closing count and returns the
exit status."""

counts = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}: {name}{': ' + detail if detail else ''}")
    counts["passed" if ok else "failed"] += 1


def summary():
    print(f"{counts['passed']} passed, {counts['failed']} failed")
    return 1 if counts["failed"] else 0
