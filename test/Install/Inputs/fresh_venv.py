"""Makes a fresh virtual environment and pip-installs a wheel into it
(test/Install/pip.test): fresh_venv.py VENV WHEEL_DIR.

The environment is made by the base Python of the one running this script,
with none of its packages but one: a .pth file puts the project
environment's site-packages on its path, so that it imports the project's
pinned torch (a few GB, not fetched again) and nothing else of it. The
project environment has no trace_mlir, so the only one the fresh
environment can import is the wheel's. The wheel installs with --no-deps
--no-index: nothing is fetched."""

import glob
import os
import subprocess
import sys
import sysconfig

venv, wheel_dir = sys.argv[1], sys.argv[2]
subprocess.run([sys._base_executable, "-m", "venv", venv], check=True)
fresh = subprocess.run(
    [os.path.join(venv, "bin", "python"), "-c",
     "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
    check=True, capture_output=True, text=True).stdout.strip()
with open(os.path.join(fresh, "project-torch.pth"), "w") as f:
    f.write(sysconfig.get_paths()["purelib"] + "\n")
wheels = glob.glob(os.path.join(wheel_dir, "trace_mlir-*.whl"))
if len(wheels) != 1:
    sys.exit(f"expected one trace_mlir wheel in {wheel_dir}, found {wheels}")
subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--no-deps",
                "--no-index", "--disable-pip-version-check", "-q", wheels[0]],
               check=True)
print(fresh)
